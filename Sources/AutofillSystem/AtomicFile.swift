internal import Glibc

/// Replacing a whole file so that a crash at any point leaves either the old or the new contents:
/// the one atomic file writer.
///
/// The bytes go to a new temporary file in the same folder (`.<name>.<random hex>.tmp`, created
/// exclusively, never through a link, with `mode`), which is fsynced, renamed over `path`, and then the
/// folder is fsynced so the rename itself is durable (best effort: some file systems refuse).
package enum AtomicFile {
    /// Where a test makes a write fail, to check what a failure or crash leaves behind.
    package enum FailurePoint: Sendable {
        /// Fail after the temporary file is written and fsynced, before the rename (cleans up as errors do).
        case beforeRename
        /// Stop dead before the rename, leaving the temporary file as a crash would.
        case crashBeforeRename
    }

    /// Why a write failed: what could not be done, and the system's reason.
    package struct Failure: Error, CustomStringConvertible {
        /// A failure of the caller's own (``write(_:named:in:shownAs:mode:failing:unless:)``'s check).
        package init(description: String, code: Int32) {
            self.description = description
            self.code = code
        }

        /// What failed, with the system's reason ("cannot replace /x/y: Permission denied").
        package let description: String
        /// The `errno` value, 0 for a simulated failure.
        package let code: Int32
    }

    /// Writes `bytes` to `path` atomically with `mode`; returns the new file's status (taken on the
    /// written file before the rename, which keeps inode, size and modification time; nil when `fstat`
    /// failed).
    @discardableResult
    package static func write(_ bytes: UnsafeRawBufferPointer, to path: String, mode: UInt32 = 0o600,
                              failing failurePoint: FailurePoint? = nil, unless changed: (() -> Failure?)? = nil) throws(Failure) -> FileStatus?
    {
        let folder = LexicalPath.folder(of: path)
        let folderFD = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folderFD >= 0 else { throw failure("cannot open the folder \(folder)") }
        defer { close(folderFD) }
        return try write(bytes, named: LexicalPath.name(of: path), in: folderFD, shownAs: folder, mode: mode, failing: failurePoint, unless: changed)
    }

    /// Writes `bytes` to the file `name` (one component) in the folder open as `folderFD` atomically with
    /// `mode`, as ``write(_:to:mode:failing:)`` does: the temporary file and the rename stay in that very
    /// folder (never reached again by path, so a link swapped in above it changes nothing), and the
    /// folder is fsynced. `folder` names the folder in errors. `changed`, when given, is asked once the
    /// new contents are on disk, just before the rename: a failure it returns is thrown and the file is
    /// left as it was (a database another program saved meanwhile).
    @discardableResult
    package static func write(_ bytes: UnsafeRawBufferPointer, named name: String, in folderFD: Int32, shownAs folder: String,
                              mode: UInt32 = 0o600, failing failurePoint: FailurePoint? = nil,
                              unless changed: (() -> Failure?)? = nil) throws(Failure) -> FileStatus?
    {
        let path = "\(folder)/\(name)"
        var random = SystemRandomNumberGenerator()
        let temporary = ".\(name).\(String(random.next() as UInt64, radix: 16)).tmp"
        let fd = openat(folderFD, temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode_t(mode))
        guard fd >= 0 else { throw failure("cannot create a temporary file in \(folder)") }
        var closed = false
        var renamed = false
        defer {
            if !closed { close(fd) }
            if !renamed && failurePoint != .crashBeforeRename { unlinkat(folderFD, temporary, 0) }
        }
        guard fchmod(fd, mode_t(mode)) == 0 else { throw failure("cannot set the mode of \(folder)/\(temporary)") }
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw failure("cannot write \(folder)/\(temporary)")
            }
            offset += written
        }
        guard fsync(fd) == 0 else { throw failure("cannot flush \(folder)/\(temporary) to disk") }
        let status = try? FileStatus(descriptor: fd)
        closed = true
        guard close(fd) == 0 else { throw failure("cannot close \(folder)/\(temporary)") }
        switch failurePoint {
        case .beforeRename: throw Failure(description: "simulated failure before replacing \(path)", code: 0)
        case .crashBeforeRename: throw Failure(description: "simulated crash before replacing \(path)", code: 0)
        case nil: break
        }
        if let failure = changed?() { throw failure }
        guard renameat(folderFD, temporary, folderFD, name) == 0 else { throw failure("cannot replace \(path)") }
        renamed = true
        _ = fsync(folderFD)  // best effort: some file systems refuse
        return status
    }

    /// ``write(_:to:mode:failing:unless:)`` of an array's bytes.
    @discardableResult
    package static func write(_ bytes: [UInt8], to path: String, mode: UInt32 = 0o600,
                              failing failurePoint: FailurePoint? = nil, unless changed: (() -> Failure?)? = nil) throws(Failure) -> FileStatus?
    {
        let result: Result<FileStatus?, Failure> = bytes.withUnsafeBytes { raw in
            do throws(Failure) {
                return .success(try write(raw, to: path, mode: mode, failing: failurePoint, unless: changed))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Fsyncs a folder so a rename in it is durable. Best effort: some file systems refuse.
    package static func syncFolder(_ folder: String) {
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }

    private static func failure(_ what: String) -> Failure {
        let code = errno
        return Failure(description: "\(what): \(String(cString: strerror(code)))", code: code)
    }
}
