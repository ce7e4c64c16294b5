import AutofillProviderKit
import VaultCore

/// The picked identity's secret: silently while unlocked, else after an unlock prompt.
extension VaultProvider: CredentialProviding {
    func provideCredentialWithoutUserInteraction(for credentialRequest: CredentialRequest, context: ExtensionContext) {
        serving {
            if case .passkeyAssertion(let identity, let parameters) = credentialRequest {
                assertWithoutUserInteraction(identity, parameters, context: context)
                return
            }
            do throws(Access) {
                answer(credentialRequest, from: try heldVault(), context: context)
            } catch {
                context.cancelRequest(because: error)
            }
        }
    }

    func prepareInterfaceToProvideCredential(for credentialRequest: CredentialRequest, context: ExtensionContext) {
        serving {
            if case .passkeyAssertion(let identity, let parameters) = credentialRequest {
                assertWithInterface(identity, parameters, context: context)
                return
            }
            withUnlockedVault(context) { vault in answer(credentialRequest, from: vault, context: context) }
        }
    }

    /// Completes `request` from the unlocked `vault`, looked up in its index.
    func answer(_ request: CredentialRequest, from vault: UnlockedVault, context: ExtensionContext) {
        switch request {
        case .password(let identity):
            guard let login = vault.index.password(for: identity) else {
                context.cancelRequest(withError: ExtensionError(.credentialIdentityNotFound, failureReason: "no such login in the vault"))
                return
            }
            complete(context, with: login)
        case .oneTimeCode(let identity):
            guard let generator = vault.index.oneTimeCode(for: identity) else {
                context.cancelRequest(withError: ExtensionError(.credentialIdentityNotFound, failureReason: "no such one-time code in the vault"))
                return
            }
            complete(context, withCodeOf: generator)
        case .passkeyAssertion(let identity, let parameters):
            assertWithoutUserInteraction(identity, parameters, context: context)
        }
    }

    /// Completes with `login`'s password. Whether it was delivered (what an automatic passkey upgrade
    /// asks) is the host's to say: it records only fills the user accepted.
    func complete(_ context: ExtensionContext, with login: PasswordEntry) {
        context.completeRequest(withSelectedCredential: PasswordCredential(user: login.user, password: login.password))
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
