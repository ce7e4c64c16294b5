internal import Glibc

/// Reading and atomically replacing whole files: the only place VaultCore writes a file.
///
/// A write goes to a temporary file in the same folder (mode 0600), is fsynced, renamed over the
/// target, and the folder is fsynced: a crash at any point leaves either the old or the new file.
enum AtomicFile {
    /// Where a test makes a write fail, to check what a failure or crash leaves behind.
    enum FailurePoint: Sendable {
        /// Fail after the temporary file is written and fsynced, before the rename (cleans up as errors do).
        case beforeRename
        /// Stop dead before the rename, leaving the temporary file as a crash would.
        case crashBeforeRename
    }

    /// The largest file read (a vault is far smaller; this stops a wrong path from eating memory).
    static let maximumSize = 64 << 20

    /// Writes `bytes` to `path` atomically with `mode`; returns the new file's stamp (nil if it
    /// could not be taken: a reader then reads the file again).
    @discardableResult
    static func write(_ bytes: [UInt8], to path: String, mode: mode_t = 0o600, failing failurePoint: FailurePoint? = nil)
        throws(VaultError) -> FileStamp?
    {
        let folder = folderOf(path)
        var random = SystemRandomNumberGenerator()
        let temporary = "\(folder)/.\(nameOf(path)).\(String(random.next() as UInt64, radix: 16)).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode)
        guard fd >= 0 else { throw ioError("cannot create a temporary file in \(folder)") }
        var closed = false
        var renamed = false
        defer {
            if !closed { close(fd) }
            if !renamed && failurePoint != .crashBeforeRename { unlink(temporary) }
        }
        guard fchmod(fd, mode) == 0 else { throw ioError("cannot set the mode of \(temporary)") }
        let writeError: Int32 = bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return 0
        }
        guard writeError == 0 else { throw ioError("cannot write \(temporary)", writeError) }
        guard fsync(fd) == 0 else { throw ioError("cannot flush \(temporary) to disk") }
        // The rename keeps the inode, size and modification time: this is the stamp of the new vault.
        let stamp = FileStamp(descriptor: fd)
        closed = true
        guard close(fd) == 0 else { throw ioError("cannot close \(temporary)") }
        switch failurePoint {
        case .beforeRename: throw VaultError(.io, "simulated failure before replacing \(path)")
        case .crashBeforeRename: throw VaultError(.io, "simulated crash before replacing \(path)")
        case nil: break
        }
        guard rename(temporary, path) == 0 else { throw ioError("cannot replace \(path)") }
        renamed = true
        syncFolder(folder)
        return stamp
    }

    /// Reads all of `path`; `notFound` when it does not exist.
    static func read(_ path: String) throws(VaultError) -> [UInt8] {
        try readStamped(path).bytes
    }

    /// Reads all of `path` and the stamp of the file read (taken on the open file, so it is the
    /// stamp of exactly these bytes even if the file is replaced meanwhile).
    static func readStamped(_ path: String) throws(VaultError) -> (bytes: [UInt8], stamp: FileStamp?) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { throw VaultError(.notFound, "\(path) does not exist") }
            throw ioError("cannot open \(path)")
        }
        defer { close(fd) }
        let stamp = FileStamp(descriptor: fd)
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw ioError("cannot read \(path)")
            }
            if count == 0 { return (bytes, stamp) }
            bytes.append(contentsOf: chunk.prefix(count))
            guard bytes.count <= maximumSize else {
                throw VaultError(.corrupt, "\(path) is larger than \(maximumSize >> 20) MiB: not a vault; check the path")
            }
        }
    }

    /// Whether something exists at `path` (without following a final symbolic link).
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// Fsyncs a folder so a rename in it is durable. Best effort: some file systems refuse.
    static func syncFolder(_ folder: String) {
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }

    /// The folder part of `path` ("." for a bare name).
    static func folderOf(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The last component of `path`.
    static func nameOf(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    /// An I/O error with the system's reason appended.
    static func ioError(_ what: String, _ code: Int32 = errno) -> VaultError {
        VaultError(.io, "\(what): \(String(cString: strerror(code)))")
    }
}
