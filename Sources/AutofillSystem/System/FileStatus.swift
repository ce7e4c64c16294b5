internal import Glibc

/// What `stat(2)` says of a file: its kind, mode, owner and group, size, identity and times.
public struct FileStatus: Sendable, Equatable {
    /// What kind of file it is (the `S_IFMT` bits).
    public enum Kind: Sendable, Equatable {
        case regular, directory, symbolicLink, socket, fifo, characterDevice, blockDevice
        /// A type bit pattern no other case names.
        case other
    }

    /// The kind.
    public let kind: Kind
    /// The whole mode word (type and permission bits, `st_mode`).
    public let mode: UInt32
    /// The owner's uid.
    public let owner: UInt32
    /// The group's gid.
    public let group: UInt32
    /// The size in bytes.
    public let size: Int64
    /// The device it lives on.
    public let device: UInt64
    /// Its inode on that device.
    public let inode: UInt64
    /// The modification time, nanoseconds since the epoch.
    public let modified: Int64
    /// The change time (ctime: any write, mode or owner change), nanoseconds since the epoch.
    public let changed: Int64

    /// The permission bits (`mode & 0o7777`: set-id, sticky, and rwx for owner, group, others).
    public var permissions: UInt32 { mode & 0o7777 }
    /// Whether users in its group may write it (`S_IWGRP`).
    public var groupWritable: Bool { mode & 0o020 != 0 }
    /// Whether every user may write it (`S_IWOTH`).
    public var othersWritable: Bool { mode & 0o002 != 0 }
    /// Whether the sticky bit is set (`S_ISVTX`: in such a folder, only an entry's owner may rename or delete it).
    public var sticky: Bool { mode & 0o1000 != 0 }

    /// The status of `path`, following a final symbolic link unless `followingLinks` is false (`lstat`).
    public init(path: String, followingLinks: Bool = true) throws(SystemError) {
        var info = stat()
        let result = followingLinks ? stat(path, &info) : lstat(path, &info)
        guard result == 0 else { throw .current("\(followingLinks ? "stat" : "lstat") \(path)") }
        self.init(info)
    }

    /// The status of the file open as `descriptor` (`fstat`).
    public init(descriptor: Int32) throws(SystemError) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .current("fstat") }
        self.init(info)
    }

    /// The status of `name` in the folder open as `folder`, not following a final link (`fstatat`,
    /// `AT_SYMLINK_NOFOLLOW`).
    public init(_ name: String, in folder: Int32) throws(SystemError) {
        var info = stat()
        guard fstatat(folder, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { throw .current("fstatat \(name)") }
        self.init(info)
    }

    init(_ info: stat) {
        switch info.st_mode & S_IFMT {
        case S_IFREG: kind = .regular
        case S_IFDIR: kind = .directory
        case S_IFLNK: kind = .symbolicLink
        case S_IFSOCK: kind = .socket
        case S_IFIFO: kind = .fifo
        case S_IFCHR: kind = .characterDevice
        case S_IFBLK: kind = .blockDevice
        default: kind = .other
        }
        mode = UInt32(info.st_mode)
        owner = UInt32(info.st_uid)
        group = UInt32(info.st_gid)
        size = Int64(info.st_size)
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        changed = Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec)
    }
}
