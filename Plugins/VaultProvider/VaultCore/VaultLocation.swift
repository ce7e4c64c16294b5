internal import AutofillSystem
internal import FoundationEssentials

/// Where the vault is when nothing names another: the Vault provider's own data folder, which its
/// sandbox always reaches and nothing else does (docs/SANDBOX.md). `autofill-vault create` makes it
/// there, and the provider reads it there while its `VaultFile` setting is unset (Info.plist declares
/// the same path as that setting's `Default`).
public enum VaultLocation {
    /// The provider id whose data folder holds the default vault.
    public static let providerID = LegacySessionFiles.providerID
    /// The default vault's file name in that folder.
    public static let fileName = "vault.afvault"

    /// `$AUTOFILL_PROVIDER_DATA_DIR/vault.afvault` inside the provider's sandbox (the host sets it to the
    /// provider's data folder), else `$XDG_DATA_HOME/autofill/providers/org.autofill.vault/vault.afvault`
    /// (the host's rule, `UserFolders`: `~/.local/share/…` without an absolute XDG_DATA_HOME; `HOME`
    /// unset, the password database's home).
    public static func defaultPath(environment: [String: String]) -> String {
        if let data = environment["AUTOFILL_PROVIDER_DATA_DIR"], data.hasPrefix("/") { return "\(data)/\(fileName)" }
        return "\(UserFolders(environment: environment).dataHome)/autofill/providers/\(providerID)/\(fileName)"
    }

    /// ``defaultPath(environment:)`` of this process's environment.
    public static var defaultPath: String {
        defaultPath(environment: ProcessInfo.processInfo.environment)
    }
}
