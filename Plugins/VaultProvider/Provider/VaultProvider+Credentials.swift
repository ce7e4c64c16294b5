import AutofillProviderKit
import VaultCore

/// The picked identity's secret: silently while unlocked, else after an unlock prompt.
extension VaultProvider: CredentialProviding {
    func provideCredentialWithoutUserInteraction(for credentialRequest: CredentialRequest, context: ExtensionContext) {
        if case .passkeyAssertion = credentialRequest {
            context.cancelRequest(withError: ExtensionError(.failed, failureReason: Self.passkeysLater))
            return
        }
        do throws(Access) {
            answer(credentialRequest, from: try sessionVault(), context: context)
        } catch {
            cancel(context, because: error)
        }
    }

    func prepareInterfaceToProvideCredential(for credentialRequest: CredentialRequest, context: ExtensionContext) {
        if case .passkeyAssertion = credentialRequest {
            context.cancelRequest(withError: ExtensionError(.failed, failureReason: Self.passkeysLater))
            return
        }
        withUnlockedVault(context) { vault in answer(credentialRequest, from: vault, context: context) }
    }

    /// Completes `request` from the unlocked `vault`.
    func answer(_ request: CredentialRequest, from vault: Vault, context: ExtensionContext) {
        switch request {
        case .password(let identity):
            let login = vault.contents.passwords.first { entry in
                if let record = identity.recordIdentifier, !record.isEmpty { return entry.id == record }
                return entry.service == identity.serviceIdentifier && entry.user == identity.user
            }
            guard let login else {
                context.cancelRequest(withError: ExtensionError(.credentialIdentityNotFound, failureReason: "no such login in the vault"))
                return
            }
            context.completeRequest(withSelectedCredential: PasswordCredential(user: login.user, password: login.password))
        case .oneTimeCode(let identity):
            let generator = vault.contents.oneTimeCodes.first { entry in
                if let record = identity.recordIdentifier, !record.isEmpty { return entry.id == record }
                return entry.service == identity.serviceIdentifier && entry.label == identity.label
            }
            guard let generator else {
                context.cancelRequest(withError: ExtensionError(.credentialIdentityNotFound, failureReason: "no such one-time code in the vault"))
                return
            }
            complete(context, withCodeOf: generator)
        case .passkeyAssertion:
            context.cancelRequest(withError: ExtensionError(.failed, failureReason: Self.passkeysLater))
        }
    }

    /// Completes with the current code of `generator`, or fails naming the entry.
    func complete(_ context: ExtensionContext, withCodeOf generator: OneTimeCodeEntry) {
        do {
            context.completeOneTimeCodeRequest(using: try generator.currentCode())
        } catch {
            host.log(.error, "\(error.message)")
            context.cancelRequest(withError: ExtensionError(.failed, failureReason: error.message))
        }
    }
}
