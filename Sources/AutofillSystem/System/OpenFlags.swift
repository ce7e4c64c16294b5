internal import Glibc

/// How ``Descriptors/open(_:_:mode:)`` opens a file: an access mode and options, as `open(2)`'s flags.
/// Every descriptor the layer opens is close-on-exec (`O_CLOEXEC`), so none leaks into a child.
public struct OpenFlags: OptionSet, Sendable {
    /// The `open(2)` flags.
    public let rawValue: Int32

    /// Flags from `open(2)`'s bits.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// Reading only (`O_RDONLY`, the default: no other access bit).
    public static let readOnly = OpenFlags([])
    /// Writing only (`O_WRONLY`).
    public static let writeOnly = OpenFlags(rawValue: O_WRONLY)
    /// Reading and writing (`O_RDWR`).
    public static let readWrite = OpenFlags(rawValue: O_RDWR)
    /// Create the file if it does not exist (`O_CREAT`; the mode applies then).
    public static let create = OpenFlags(rawValue: O_CREAT)
    /// With ``create``: fail with EEXIST when it exists (`O_EXCL`).
    public static let exclusive = OpenFlags(rawValue: O_EXCL)
    /// Every write goes to the end (`O_APPEND`).
    public static let append = OpenFlags(rawValue: O_APPEND)
    /// Cut the file to nothing (`O_TRUNC`).
    public static let truncate = OpenFlags(rawValue: O_TRUNC)
    /// Fail with ELOOP when the last component is a symbolic link (`O_NOFOLLOW`).
    public static let noFollow = OpenFlags(rawValue: O_NOFOLLOW)
    /// Fail with ENOTDIR unless it is a folder (`O_DIRECTORY`).
    public static let directory = OpenFlags(rawValue: O_DIRECTORY)
    /// Never wait: a FIFO or device does not block the open or the reads (`O_NONBLOCK`).
    public static let nonblocking = OpenFlags(rawValue: O_NONBLOCK)
    /// A terminal opened does not become the controlling terminal (`O_NOCTTY`).
    public static let noControllingTerminal = OpenFlags(rawValue: O_NOCTTY)
}
