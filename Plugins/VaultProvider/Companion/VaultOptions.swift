import ArgumentParser
import Foundation
import VaultCore

/// The options every command takes: which vault, which provider's store, where the password comes from.
struct VaultOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The vault file (default: $AUTOFILL_VAULT, else $XDG_DATA_HOME/autofill/providers/org.autofill.vault/vault.afvault).", valueName: "path"))
    var vault: String?

    @Option(name: .long, help: ArgumentHelp("The provider whose identity store to update.", valueName: "id"))
    var provider: String = "org.autofill.vault"

    @Option(name: .long, help: ArgumentHelp(
        "The identity stores' folder, when the host configuration sets IdentityStoreDirectory (default: $XDG_DATA_HOME/autofill/stores).",
        valueName: "path"))
    var identityStores: String?

    @Flag(name: .long, help: "Read the master password (and then the new entry's secret) from standard input, one per line.")
    var passwordStdin = false

    /// The vault path these options name.
    var vaultPath: String {
        Self.vaultPath(explicit: vault, environment: ProcessInfo.processInfo.environment)
    }

    static func vaultPath(explicit: String?, environment: [String: String]) -> String {
        if let explicit, !explicit.isEmpty { return explicit }
        if let path = environment["AUTOFILL_VAULT"], !path.isEmpty { return path }
        return defaultVaultPath(environment: environment)
    }

    /// Where the Vault provider looks while its VaultFile setting is unset: its private data folder,
    /// which its sandbox always reaches and nothing else does (docs/SANDBOX.md).
    static func defaultVaultPath(environment: [String: String]) -> String {
        var environment = environment
        environment["AUTOFILL_PROVIDER_DATA_DIR"] = nil  // the provider's variable, never this program's
        return VaultLocation.defaultPath(environment: environment)
    }
}

/// Options of commands that add an entry.
struct EntryOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The entry's id (default: a new random id).", valueName: "id"))
    var id: String?

    @Option(name: .long, help: ArgumentHelp("Larger ranks are suggested first among entries for the same service.", valueName: "n"))
    var rank: Int = 0
}
