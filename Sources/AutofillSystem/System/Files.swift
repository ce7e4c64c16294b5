internal import CAutofillSystem
internal import Glibc

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

extension Files {
    /// Takes an exclusive `flock` on `descriptor`, waiting for it (retrying EINTR); closing the
    /// descriptor releases it.
    public static func lockExclusive(_ descriptor: Int32) throws(SystemError) {
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else { throw .current("flock") }
        }
    }

    /// Takes an exclusive `flock` on `descriptor` without waiting: false when another holds it.
    public static func tryLockExclusive(_ descriptor: Int32) throws(SystemError) -> Bool {
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            if errno == EWOULDBLOCK { return false }
            guard errno == EINTR else { throw .current("flock") }
        }
        return true
    }

    /// Releases a `flock` on `descriptor`.
    public static func unlock(_ descriptor: Int32) throws(SystemError) {
        guard flock(descriptor, LOCK_UN) == 0 else { throw .current("flock") }
    }
}
