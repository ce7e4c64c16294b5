internal import CAutofillSystem

/// Files (files.c): the one-agent lock file and a path's identity.
public enum Files {
    /// Opens (creating, 0600) `path` and takes an exclusive flock on it without waiting: the descriptor
    /// (kept open to hold the lock), or nil when another process holds it.
    public static func lock(_ path: String) throws(SystemError) -> Int32? {
        let descriptor = afsys_lock_file(path)
        if descriptor == -2 { return nil }
        guard descriptor >= 0 else { throw SystemError.current("lock \(path)") }
        return descriptor
    }

    /// The device and inode of `path`, without following a final symbolic link.
    public static func identity(_ path: String) throws(SystemError) -> (device: UInt64, inode: UInt64) {
        var device: UInt64 = 0, inode: UInt64 = 0
        guard afsys_identity(path, &device, &inode) == 0 else { throw SystemError.current("lstat \(path)") }
        return (device, inode)
    }
}
