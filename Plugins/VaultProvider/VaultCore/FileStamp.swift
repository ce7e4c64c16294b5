internal import AutofillSystem

/// What tells one version of a file from the next without reading it: device, inode, size and
/// modification time in nanoseconds.
///
/// Every save of a vault writes a new file and renames it over the old one, so the inode changes
/// even when the size and the time (on a file system with coarse timestamps) do not. The provider
/// compares the stamp of the file on disk with the one it read, one `stat` per request, and reads
/// the file again only when they differ.
public struct FileStamp: Hashable, Sendable {
    /// The file system's device.
    public var device: UInt64
    /// The inode.
    public var inode: UInt64
    /// The size in bytes.
    public var size: Int64
    /// The modification time, nanoseconds since 1970.
    public var modifiedNanoseconds: Int64

    init(_ info: FileStatus) {
        device = info.device
        inode = info.inode
        size = info.size
        modifiedNanoseconds = info.modified
    }

    /// The stamp of the open file `fd`, or nil when `fstat` fails.
    init?(descriptor fd: Int32) {
        guard let info = try? FileStatus(descriptor: fd) else { return nil }
        self.init(info)
    }

    /// The stamp of the file at `path` (following symbolic links, as reading it does).
    public init(path: String) throws(VaultError) {
        do {
            self.init(try FileStatus(path: path))
        } catch {
            if error.noSuchFile { throw VaultError(.notFound, "\(path) does not exist") }
            throw AtomicFile.ioError("cannot check \(path)", error)
        }
    }
}
