package import Glibc

/// A file as `stat` sees it: device, inode, size, and modification and change times in nanoseconds.
///
/// Why it is enough to tell that a file is unchanged: any write to a file, or any change of its mode
/// or owner, sets its ctime to the current time, and only the kernel sets ctime (`utimensat` can forge
/// mtime, not ctime); a file replaced by `rename` is another inode, and `rename` itself sets the moved
/// file's ctime. The one gap is the clock's tick: two writes within the same tick can leave the same
/// stamp, so what was read of a file whose ctime is recent (``isSettled(now:)``) is never remembered.
package struct StatStamp: Codable, Hashable, Sendable {
    package var device: UInt64
    package var inode: UInt64
    package var size: Int64
    package var modified: Int64
    package var changed: Int64

    /// How old a file's ctime must be before what was read of it is remembered (nanoseconds).
    package static let settleTime: Int64 = 2_000_000_000

    /// The stamp of the file at `path` (symbolic links followed), or nil if it cannot be read.
    package init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        self.init(info)
    }

    /// The stamp of a file whose status the caller took (`fstat` of the descriptor it read).
    package init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        changed = Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec)
    }

    /// Whether the file last changed at least `settleTime` before `now` (nanoseconds, ``now()``).
    package func isSettled(now: Int64 = StatStamp.now(), settleTime: Int64 = StatStamp.settleTime) -> Bool {
        now - changed >= settleTime
    }

    /// The wall clock in nanoseconds (ctime's clock).
    package static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }
}
