internal import Glibc

/// Who this process runs as, and what the password and group databases say of a uid or gid
/// (`getpwuid_r`, `getgrgid_r`: safe from any thread).
public enum Users {
    /// A user's entry in the password database.
    public struct Account: Sendable, Equatable {
        /// The login name.
        public let name: String
        /// The primary group.
        public let group: UInt32
        /// The home folder.
        public let home: String
    }

    /// A group's entry in the group database.
    public struct Group: Sendable, Equatable {
        /// The group's name.
        public let name: String
        /// The login names listed as its members (not the users whose primary group it is).
        public let members: [String]
    }

    /// The real uid (`getuid`).
    public static var current: UInt32 { getuid() }

    /// The effective uid (`geteuid`): whose files this process may change.
    public static var effective: UInt32 { geteuid() }

    /// This process's pid.
    public static var processID: Int32 { getpid() }

    /// The password database's entry for `uid`, nil when it has none.
    public static func account(_ uid: UInt32) -> Account? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwuid_r(uid_t(uid), &entry, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
        return Account(name: entry.pw_name.map { String(cString: $0) } ?? "", group: UInt32(entry.pw_gid),
                       home: entry.pw_dir.map { String(cString: $0) } ?? "")
    }

    /// The group database's entry for `gid`, nil when it has none.
    public static func group(_ gid: UInt32) -> Group? {
        var entry = Glibc.group()
        var result: UnsafeMutablePointer<Glibc.group>?
        var buffer = [CChar](repeating: 0, count: 16384)
        guard getgrgid_r(gid_t(gid), &entry, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
        var members: [String] = []
        var member = entry.gr_mem
        while let name = member?.pointee {
            members.append(String(cString: name))
            member = member?.advanced(by: 1)
        }
        return Group(name: entry.gr_name.map { String(cString: $0) } ?? "", members: members)
    }
}
