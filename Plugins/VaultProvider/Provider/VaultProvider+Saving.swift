import AutofillProviderKit
import VaultCore

/// iOS 26's entry points: saving a password, generating one, and credential-update reports.
extension VaultProvider: SavePasswordProviding, GeneratePasswordProviding, CredentialUpdateProviding {
    /// Adds the login, or updates the password of the user's login at that site, saves the vault
    /// and publishes the identity. Unlocks first if needed (the user asked to save).
    func prepareInterface(forSavePasswordRequest request: SavePasswordRequest, context: ExtensionContext) {
        let credential = request.credential
        change(context, asked: "saving \(credential.user)'s password") { contents in
            let saved = try contents.savePassword(credential.password, user: credential.user, for: request.serviceIdentifier)
            return "\(saved.added ? "added a login" : "saved a new password") for \(credential.user) at \(saved.entry.service.identifier)"
        } completion: {
            context.completeSavePasswordRequest()
        }
    }

    /// A password that honours the request's rules (the host checks it again), from the SDK's
    /// generator. Needs no unlock: generating saves nothing.
    func prepareInterface(forGeneratePasswordRequest request: GeneratePasswordRequest, context: ExtensionContext) {
        context.completeGeneratePasswordRequest(honouring: request)
    }

    /// Applies the report to the vault (``VaultContents/apply(_:)`` says how) and publishes the
    /// identity changes; unlocks first if needed.
    func report(_ update: CredentialUpdate, context: ExtensionContext) {
        change(context, asked: "applying the report") { contents in try contents.apply(update) } completion: {
            context.completeCredentialUpdate()
        }
    }

    /// Unlocks the vault (asking if needed), changes it with `body` under the vault's lock, keeps it
    /// in memory, publishes the identity changes, logs `body`'s summary (never a secret), then
    /// calls `completion`; cancels with the reason on failure.
    private func change(
        _ context: ExtensionContext, asked what: String, _ body: (inout VaultContents) throws -> String,
        completion: () -> Void
    ) {
        serving {
            withUnlockedVault(context) { vault in
                do {
                    let saved = try vault.vault.update(waitingAtMost: Self.uiLockWait, body)
                    memory.adopt(saved.vault)
                    publish(saved.changes, of: saved.vault, context: context)
                    host.log(.info, saved.result)
                    completion()
                } catch let error as VaultError {
                    host.log(.error, "\(what): \(error.message)")
                    context.cancelRequest(withError: ExtensionError(.failed, failureReason: error.message))
                } catch {
                    host.log(.error, "\(what) failed: \(error)")
                    context.cancelRequest(withError: ExtensionError(.failed, failureReason: "\(what) failed"))
                }
            }
        }
    }
}
