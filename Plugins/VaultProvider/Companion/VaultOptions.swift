import ArgumentParser
import Foundation

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
        // The Vault's private data folder: its sandbox always reaches it, and nothing else does (docs/SANDBOX.md).
        let data = environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? "\(environment["HOME"] ?? NSHomeDirectory())/.local/share"
        return "\(data)/autofill/providers/org.autofill.vault/vault.afvault"
    }
}

/// Options of commands that add an entry.
struct EntryOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The entry's id (default: a new random id).", valueName: "id"))
    var id: String?

    @Option(name: .long, help: ArgumentHelp("Larger ranks are suggested first among entries for the same service.", valueName: "n"))
    var rank: Int = 0
}
