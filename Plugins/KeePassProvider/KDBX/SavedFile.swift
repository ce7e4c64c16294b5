internal import AutofillSystem
internal import Crypto
internal import Glibc

/// The database file as saving reads and replaces it: read whole with the stamp of exactly the bytes
/// read; replaced atomically (a temporary file in the same folder with the file's mode, fsynced,
/// renamed over it, the folder fsynced), and only while the file on disk is still the one read; or
/// handed to the host whole, which replaces it only while its SHA-256 is still ``sha256``.
public struct SavedFile: Sendable {
    public let path: String
    public let bytes: [UInt8]
    /// The version read (``StatStamp``: device, inode, size, modification and change times in ns).
    let stamp: StatStamp
    let mode: mode_t

    /// The largest database saved: a larger file is refused before it is read (the host replaces a
    /// file of at most `AF_MAX_REPLACE_FILE_LENGTH`, 256 MiB, for a sandboxed provider).
    static let maximumSize = 256 << 20

    /// The SHA-256 of ``bytes``: what the change is based on.
    public var sha256: [UInt8] { Array(SHA256.hash(data: bytes)) }

    /// This file as the host wrote it with `contents`, with the stamp of the version read: what a
    /// sandboxed provider bases its next save on while its sandbox still shows the version it read
    /// (``isUnchangedOrUnlinked``; docs/WRITING_A_PROVIDER.md, "replace_file").
    public func replaced(by contents: [UInt8]) -> SavedFile {
        SavedFile(path: path, bytes: contents, stamp: stamp, mode: mode)
    }

    private init(path: String, bytes: [UInt8], stamp: StatStamp, mode: mode_t) {
        self.path = path
        self.bytes = bytes
        self.stamp = stamp
        self.mode = mode
    }

    /// Reads the file at `path`; a symbolic link is followed, and the file it names is the one
    /// replaced (a save must not turn the link into a file of its own).
    public init(reading path: String) throws(KDBXError) {
        var named = path
        if let resolved = realpath(path, nil) {
            named = String(cString: resolved)
            free(resolved)
        }
        let fd = open(named, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw KDBXError(.unreadable, "the database \(path) cannot be read for saving: \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        try self.init(descriptor: fd, path: named)
    }

    /// Reads the file open at `descriptor` from its start (the host opened it: `open_file`), named
    /// `path` (as the host replaces it); the caller keeps and closes the descriptor.
    public init(descriptor fd: Int32, path: String) throws(KDBXError) {
        self.path = path
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw KDBXError(.unreadable, "the database \(path) is not a regular file: nothing saved")
        }
        guard Int(info.st_size) <= Self.maximumSize else {
            throw KDBXError(.unsupported, "the database \(path) is larger than \(Self.maximumSize >> 20) MiB: autofill does not save into it (use KeePassXC)")
        }
        stamp = StatStamp(info)
        mode = info.st_mode & 0o7777
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + offset, $0.count - offset, off_t(offset)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw KDBXError(.unreadable, "the database \(path) changed while it was read: nothing saved; save again") }
            offset += count
        }
        self.bytes = bytes
    }

    /// Whether the file at `path` is still the one read.
    var isUnchanged: Bool {
        var info = stat()
        return stat(path, &info) == 0 && StatStamp(info) == stamp
    }

    /// Whether the file at `path` is still the one read, or that very file since unlinked: a file bound
    /// into a sandbox by itself and then replaced on the host (the bind keeps the old file, whose link
    /// count drops to 0 and ctime moves; nothing can change its contents any more).
    public var isUnchangedOrUnlinked: Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        let now = StatStamp(info)
        return now == stamp || (info.st_nlink == 0 && now.device == stamp.device && now.inode == stamp.inode
                                && now.size == stamp.size && now.modified == stamp.modified)
    }

    /// Replaces the file with `contents` (``AtomicFile``, with the file's mode), unless it changed on
    /// disk since it was read: checked once the new contents are on disk, just before the rename.
    func replace(with contents: [UInt8]) throws(KDBXError) {
        let changed = AtomicFile.Failure(description: """
            the database \(path) changed on disk while autofill was saving into it (another program saved it): \
            nothing was written; save again to apply the change to the new version
            """, code: ESTALE)
        do {
            try AtomicFile.write(contents, to: path, mode: mode, unless: { isUnchanged ? nil : changed })
        } catch {
            if error.code == ESTALE && error.description == changed.description { throw KDBXError(.changedOnDisk, changed.description) }
            throw KDBXError(.unwritable, "\(error.description); the database was not changed")
        }
    }
}
