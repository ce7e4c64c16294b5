/// One unlocked vault as the provider holds it: the vault (its key in ``LockedBytes``, its
/// decrypted entries, the stamp of the file they were read from) and the ``VaultIndex`` of the
/// entries.
public struct UnlockedVault: Sendable {
    /// The vault: path, header, key, contents and file stamp.
    public let vault: Vault
    /// The lookups into its contents.
    public let index: VaultIndex

    /// Indexes `vault`'s contents.
    public init(_ vault: Vault) {
        self.vault = vault
        index = VaultIndex(vault.contents)
    }

    /// The vault file.
    public var path: String { vault.path }
}
