internal import AutofillSystem

/// The exclusive lock writers of one of the host's records take (`<file>.lock`, as ``StateFile`` and
/// ``FillJournal`` do): opened (created 0600) and `flock`ed, waiting for other threads and processes.
enum RecordLock {
    /// Takes the lock at `lockPath` (not through a final symbolic link unless `followingLinks`); the
    /// descriptor, whose closing releases the lock.
    static func take(_ lockPath: String, followingLinks: Bool = true) throws(AutofillError) -> Int32 {
        let lock: Int32
        do {
            lock = try Descriptors.open(lockPath, followingLinks ? [.readWrite, .create] : [.readWrite, .create, .noFollow], mode: 0o600)
        } catch {
            throw AutofillError(.io, "cannot open \(lockPath): \(error.reason)")
        }
        do {
            try Files.lockExclusive(lock)
        } catch {
            Descriptors.closeQuietly(lock)
            throw AutofillError(.io, "cannot lock \(lockPath): \(error.reason)")
        }
        return lock
    }
}
