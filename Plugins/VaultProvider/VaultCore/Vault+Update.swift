internal import AutofillCore
internal import AutofillSystem

extension Vault {
    /// Opens the vault at `path`, lets `body` change its contents, saves it, and returns the
    /// identity changes, all while holding an exclusive lock on the vault's folder (`flock`), so
    /// that two writers never lose each other's changes. `unlock` opens the vault (with the
    /// password or the key the provider holds) under the lock. Nothing is saved when `body` throws or changes nothing.
    /// Throws what `unlock` or `body` throw, or a ``VaultError``. With `lockTimeout` (seconds), a
    /// lock held by another program for longer (autofill-vault waiting for its master password, say)
    /// fails with ``VaultError/Code/busy`` instead of waiting on.
    public static func update<Result>(
        at path: String, waitingAtMost lockTimeout: Double? = nil, unlock: (String) throws -> Vault,
        _ body: (inout VaultContents) throws -> Result
    ) throws -> (result: Result, changes: IdentityChanges, vault: Vault) {
        try holdingFolderLock(of: path, waitingAtMost: lockTimeout) {
            var vault = try unlock(path)
            let before = vault.contents
            let result = try body(&vault.contents)
            guard vault.contents != before else { return (result, IdentityChanges(from: [], to: []), vault) }
            try vault.save()
            return (result, IdentityChanges(from: before.identities, to: vault.contents.identities), vault)
        }
    }

    /// Runs `body` holding the exclusive lock on the folder of the vault at `path` (`flock`): the
    /// one writer at a time.
    static func holdingFolderLock<Result>(of path: String, waitingAtMost lockTimeout: Double?, _ body: () throws -> Result) throws -> Result {
        let folder = AtomicFile.folderOf(path)
        let fd: Int32
        do {
            fd = try Descriptors.open(folder, .directory)
        } catch {
            throw AtomicFile.ioError("cannot open the vault's folder \(folder)", error)
        }
        defer { Descriptors.closeQuietly(fd) }
        try lock(fd, folder: folder, path: path, waitingAtMost: lockTimeout)
        defer { try? Files.unlock(fd) }
        return try body()
    }
}

extension Vault {
    /// ``update(at:waitingAtMost:unlock:_:)`` for this unlocked vault: re-reads the file under the
    /// folder lock with this vault's key (so a change the companion saved meanwhile is kept), lets
    /// `body` change the contents, and saves. For the plugin, which holds the key of the unlocked
    /// vault in memory and cannot wait long for the lock.
    public func update<Result>(waitingAtMost lockTimeout: Double, _ body: (inout VaultContents) throws -> Result) throws
        -> (result: Result, changes: IdentityChanges, vault: Vault)
    {
        let key = self.key
        return try Vault.update(at: path, waitingAtMost: lockTimeout, unlock: { path in try Vault.open(at: path, key: key) }, body)
    }

    /// Takes the exclusive lock on the open folder `fd`: waiting as long as it takes, or polling
    /// every 10 ms for at most `timeout` seconds.
    private static func lock(_ fd: Int32, folder: String, path: String, waitingAtMost timeout: Double?) throws(VaultError) {
        guard let timeout else {
            do {
                try Files.lockExclusive(fd)
            } catch {
                throw AtomicFile.ioError("cannot lock the vault's folder \(folder)", error)
            }
            return
        }
        let deadline = WallClock.now() + timeout
        while true {
            let taken: Bool
            do {
                taken = try Files.tryLockExclusive(fd)
            } catch {
                throw AtomicFile.ioError("cannot lock the vault's folder \(folder)", error)
            }
            if taken { return }
            guard WallClock.now() < deadline else {
                throw VaultError(.busy, "the vault \(path) is being changed by another program (autofill-vault?); try again when it is done")
            }
            SystemClock.sleep(milliseconds: 10)
        }
    }
}
