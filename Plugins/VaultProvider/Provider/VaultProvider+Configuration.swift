import AutofillProviderKit
import VaultCore

/// Right after the user enables the provider, and `autofill unlock` (through the agent, whose helper
/// process keeps what it unlocks): explain how to make a vault, or unlock and publish.
extension VaultProvider: ExtensionConfigurationProviding {
    func prepareInterfaceForExtensionConfiguration(context: ExtensionContext) {
        guard let vaultPath, !Self.isMissing(vaultPath) else {
            let problem = vaultPath.map { "The vault file \($0) does not exist." } ?? "No vault file is set."
            try? context.showMessage(title: Self.name, message: """
                \(problem) Create a vault with `autofill-vault create --vault PATH`, add entries with \
                `autofill-vault add-password`, and set VaultFile to PATH in the ProviderSettings of \
                org.autofill.vault in the autofill configuration (docs/VAULT.md).
                """)
            context.completeExtensionConfigurationRequest()
            return
        }
        serving {
            withUnlockedVault(context) { vault in
                publishAll(vault.vault)
                context.completeExtensionConfigurationRequest()
            }
        }
    }

    /// Whether `path` names no file (a damaged or unreadable one is reported by unlocking).
    static func isMissing(_ path: String) -> Bool {
        do {
            _ = try Vault.header(at: path)
            return false
        } catch {
            return error.code == .notFound
        }
    }
}
