internal import AutofillSystem

/// Reading and atomically replacing whole files: the only place VaultCore writes a file.
///
/// A write is ``AutofillSystem/AtomicFile``'s: a temporary file in the same folder (mode 0600),
/// fsynced, renamed over the target, and the folder fsynced: a crash at any point leaves either the
/// old or the new file.
enum AtomicFile {
    /// Where a test makes a write fail, to check what a failure or crash leaves behind.
    typealias FailurePoint = AutofillSystem.AtomicFile.FailurePoint

    /// The largest file read (a vault is far smaller; this stops a wrong path from eating memory).
    static let maximumSize = 64 << 20

    /// Writes `bytes` to `path` atomically with `mode`; returns the new file's stamp.
    @discardableResult
    static func write(_ bytes: [UInt8], to path: String, mode: UInt32 = 0o600, failing failurePoint: FailurePoint? = nil)
        throws(VaultError) -> FileStamp?
    {
        do {
            // The rename keeps the inode, size and modification time: this is the stamp of the new vault.
            return try AutofillSystem.AtomicFile.write(bytes, to: path, mode: mode, failing: failurePoint).map(FileStamp.init)
        } catch {
            throw VaultError(.io, error.description)
        }
    }

    /// Reads all of `path`; `notFound` when it does not exist.
    static func read(_ path: String) throws(VaultError) -> [UInt8] {
        try readStamped(path).bytes
    }

    /// Reads all of `path` and the stamp of the file read (taken on the open file, so it is the
    /// stamp of exactly these bytes even if the file is replaced meanwhile).
    static func readStamped(_ path: String) throws(VaultError) -> (bytes: [UInt8], stamp: FileStamp?) {
        let fd: Int32
        do {
            fd = try Descriptors.open(path)
        } catch {
            if error.noSuchFile { throw VaultError(.notFound, "\(path) does not exist") }
            throw ioError("cannot open \(path)", error)
        }
        defer { Descriptors.closeQuietly(fd) }
        let stamp = FileStamp(descriptor: fd)
        let bytes: [UInt8]?
        do {
            bytes = try Descriptors.readAll(fd, limit: maximumSize)
        } catch {
            throw ioError("cannot read \(path)", error)
        }
        guard let bytes else {
            throw VaultError(.corrupt, "\(path) is larger than \(maximumSize >> 20) MiB: not a vault; check the path")
        }
        return (bytes, stamp)
    }

    /// Whether something exists at `path` (without following a final symbolic link).
    static func exists(_ path: String) -> Bool {
        (try? FileStatus(path: path, followingLinks: false)) != nil
    }

    /// The folder part of `path` ("." for a bare name).
    static func folderOf(_ path: String) -> String {
        LexicalPath.folder(of: path)
    }

    /// An I/O error with the system's reason appended.
    static func ioError(_ what: String, _ error: SystemError) -> VaultError {
        VaultError(.io, "\(what): \(error.reason)")
    }
}
