public import AutofillCore

extension Vault {
    /// Changes the master password of the vault at `path`: a new random salt, a new key derived
    /// from `newPassword` with `keyDerivation` (which must meet this build's floor for writing), the
    /// same entries sealed under it, and the file replaced atomically. Returns the vault under its new key.
    ///
    /// All under the folder lock, as ``update(at:waitingAtMost:unlock:_:)``: `unlock` opens the vault
    /// with the current password (when it throws, nothing changed), then `newPassword` is asked for.
    /// A failure before the rename leaves the old file, under the old password, as it was; the old
    /// key is wiped once the new file is in place. The provider holding the vault unlocked notices
    /// the new salt and locks (``VaultMemory``); its writes under the old key fail, as the old key no
    /// longer opens the file.
    public static func changeMasterPassword(
        at path: String, waitingAtMost lockTimeout: Double? = nil, unlock: (String) throws -> Vault,
        newPassword: () throws -> Secret, keyDerivation: KeyDerivation = .standard
    ) throws -> Vault {
        try changeMasterPassword(at: path, waitingAtMost: lockTimeout, unlock: unlock, newPassword: newPassword,
                                 keyDerivation: keyDerivation, failing: nil)
    }

    static func changeMasterPassword(
        at path: String, waitingAtMost lockTimeout: Double? = nil, unlock: (String) throws -> Vault,
        newPassword: () throws -> Secret, keyDerivation: KeyDerivation = .standard, failing failurePoint: AtomicFile.FailurePoint?
    ) throws -> Vault {
        try keyDerivation.check(.writing)
        return try holdingFolderLock(of: path, waitingAtMost: lockTimeout) {
            let current = try unlock(path)
            let password = try newPassword()
            let (header, key) = try newKey(password: password, keyDerivation: keyDerivation)
            var changed = Vault(path: path, header: header, key: key, contents: current.contents)
            do {
                try changed.save(failing: failurePoint)
            } catch {
                key.wipe()
                throw error
            }
            current.key.wipe()
            return changed
        }
    }
}
