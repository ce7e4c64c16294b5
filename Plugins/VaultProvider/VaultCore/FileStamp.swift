internal import Glibc

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

    init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modifiedNanoseconds = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
    }

    /// The stamp of the open file `fd`, or nil when `fstat` fails.
    init?(descriptor fd: Int32) {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        self.init(info)
    }

    /// The stamp of the file at `path` (following symbolic links, as reading it does).
    public init(path: String) throws(VaultError) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT { throw VaultError(.notFound, "\(path) does not exist") }
            throw AtomicFile.ioError("cannot check \(path)")
        }
        self.init(info)
    }
}
