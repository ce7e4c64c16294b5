internal import Glibc

/// The database file as saving reads and replaces it: read whole with the stamp of exactly the bytes
/// read; replaced atomically (a temporary file in the same folder with the file's mode, fsynced,
/// renamed over it, the folder fsynced), and only while the file on disk is still the one read.
struct SavedFile {
    /// What identifies one version of a file: device, inode, size, and modification and change
    /// times to the nanosecond.
    struct Stamp: Equatable, Sendable {
        let device: UInt64, inode: UInt64, size: Int64
        let modified: [Int], changed: [Int]

        init(_ info: stat) {
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
            size = Int64(info.st_size)
            modified = [info.st_mtim.tv_sec, info.st_mtim.tv_nsec]
            changed = [info.st_ctim.tv_sec, info.st_ctim.tv_nsec]
        }
    }

    let path: String
    let bytes: [UInt8]
    let stamp: Stamp
    let mode: mode_t

    /// The largest database saved: a larger file is refused before it is read.
    static let maximumSize = 512 << 20

    /// Reads the file at `path`; a symbolic link is followed, and the file it names is the one
    /// replaced (a save must not turn the link into a file of its own).
    init(reading path: String) throws(KDBXError) {
        if let resolved = realpath(path, nil) {
            self.path = String(cString: resolved)
            free(resolved)
        } else {
            self.path = path
        }
        let fd = open(self.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw KDBXError(.unreadable, "the database \(path) cannot be read for saving: \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw KDBXError(.unreadable, "the database \(path) is not a regular file: nothing saved")
        }
        guard Int(info.st_size) <= Self.maximumSize else {
            throw KDBXError(.unsupported, "the database \(path) is larger than \(Self.maximumSize >> 20) MiB: autofill does not save into it (use KeePassXC)")
        }
        stamp = Stamp(info)
        mode = info.st_mode & 0o7777
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + offset, $0.count - offset) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw KDBXError(.unreadable, "the database \(path) changed while it was read: nothing saved; save again") }
            offset += count
        }
        self.bytes = bytes
    }

    /// Whether the file at `path` is still the one read.
    var isUnchanged: Bool {
        var info = stat()
        return stat(path, &info) == 0 && Stamp(info) == stamp
    }

    /// Replaces the file with `contents`, unless it changed on disk since it was read.
    func replace(with contents: [UInt8]) throws(KDBXError) {
        let folder = path.lastIndex(of: "/").map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let name = path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
        var random = SystemRandomNumberGenerator()
        let temporary = "\(folder)/.\(name).\(String(random.next() as UInt64, radix: 16)).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw failure("cannot create a temporary file in \(folder)") }
        var closed = false
        var renamed = false
        defer {
            if !closed { close(fd) }
            if !renamed { unlink(temporary) }
        }
        guard fchmod(fd, mode) == 0 else { throw failure("cannot set the mode of \(temporary)") }
        var offset = 0
        while offset < contents.count {
            let written = contents.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { throw failure("cannot write \(temporary)") }
            offset += written
        }
        guard fsync(fd) == 0 else { throw failure("cannot flush \(temporary) to disk") }
        closed = true
        guard close(fd) == 0 else { throw failure("cannot close \(temporary)") }
        guard isUnchanged else {
            throw KDBXError(.changedOnDisk, """
                the database \(path) changed on disk while autofill was saving into it (another program saved it): \
                nothing was written; save again to apply the change to the new version
                """)
        }
        guard rename(temporary, path) == 0 else { throw failure("cannot replace \(path)") }
        renamed = true
        let folderFD = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folderFD >= 0 {
            _ = fsync(folderFD)  // best effort: some file systems refuse
            close(folderFD)
        }
    }

    private func failure(_ what: String) -> KDBXError {
        KDBXError(.unwritable, "\(what): \(String(cString: strerror(errno))); the database was not changed")
    }
}
