internal import Glibc

/// A system call that failed: what was being done and the `errno` it set (swift-system's `Errno`, with
/// the operation named, so a message can say what failed and why).
public struct SystemError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The `errno` value.
    public let code: Int32
    /// What failed, as a person reads it: the call and, where one is involved, its path ("socketpair",
    /// "posix_spawn /usr/bin/bwrap").
    public let operation: String

    /// The failure of `operation` with `errno` `code`.
    public init(_ operation: String, code: Int32) {
        self.operation = operation
        self.code = code
    }

    /// The failure of `operation` with the calling thread's current `errno` (read it right after the call).
    public static func current(_ operation: String) -> SystemError { SystemError(operation, code: errno) }

    /// The system's text for ``code`` ("No such file or directory").
    public var reason: String { String(cString: strerror(code)) }

    /// "operation failed (reason)".
    public var description: String { "\(operation) failed (\(reason))" }

    /// The call was interrupted by a signal (EINTR).
    public var interrupted: Bool { code == EINTR }

    /// A non-blocking call found nothing to do yet (EAGAIN, EWOULDBLOCK).
    public var wouldBlock: Bool { code == EAGAIN || code == EWOULDBLOCK }

    /// No such file or folder (ENOENT).
    public var noSuchFile: Bool { code == ENOENT }

    /// It exists already (EEXIST).
    public var alreadyExists: Bool { code == EEXIST }

    /// A component that must be a folder is not one (ENOTDIR).
    public var notAFolder: Bool { code == ENOTDIR }

    /// A symbolic link where none may be (ELOOP, `O_NOFOLLOW`).
    public var isALink: Bool { code == ELOOP }

    /// The descriptor is not open (EBADF).
    public var badDescriptor: Bool { code == EBADF }

    /// An argument the call refuses (EINVAL).
    public var invalidArgument: Bool { code == EINVAL }

    /// This process, or the system, has no descriptor left (EMFILE, ENFILE).
    public var outOfDescriptors: Bool { code == EMFILE || code == ENFILE }

    /// No such process (ESRCH).
    public var noSuchProcess: Bool { code == ESRCH }
}
