import AutofillProviderKit
import VaultCore

/// Right after the user enables the provider, and `autofill unlock` (through the agent, whose helper
/// process keeps what it unlocks): unlock and publish, or fail saying how to make a vault.
extension VaultProvider: ExtensionConfigurationProviding {
    func prepareInterfaceForExtensionConfiguration(context: ExtensionContext) {
        // No vault to unlock is a failure, said once: neither `unlock` nor `enable` may claim success.
        guard let vaultPath, !Self.isMissing(vaultPath) else {
            let problem = vaultPath.map { "the vault file \($0) does not exist" } ?? "no vault file is set"
            context.cancelRequest(withError: ExtensionError(.failed, failureReason: """
                \(problem): create it with `autofill-vault create` (where this provider looks), or point VaultFile \
                at your vault with `autofill providers set org.autofill.vault VaultFile PATH` (docs/VAULT.md)
                """))
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
