import AutofillOTP
import AutofillProviderKit
import Foundation
import KDBX

/// The picked identity's secret: silently while unlocked, else after an unlock prompt.
extension KeePassProvider: CredentialProviding {
    func provideCredentialWithoutUserInteraction(for credentialRequest: CredentialRequest, context: ExtensionContext) {
        if case .passkeyAssertion(let identity, let parameters) = credentialRequest {
            assertWithoutUserInteraction(identity, parameters, context: context)
            return
        }
        do throws(Access) {
            answer(credentialRequest, from: try heldIndex(), context: context)
        } catch {
            context.cancelRequest(because: error)
        }
    }

    func prepareInterfaceToProvideCredential(for credentialRequest: CredentialRequest, context: ExtensionContext) {
        if case .passkeyAssertion(let identity, let parameters) = credentialRequest {
            assertWithInterface(identity, parameters, context: context)
            return
        }
        withUnlockedIndex(context) { index in answer(credentialRequest, from: index, context: context) }
    }

    /// Completes `request` from the unlocked `index`.
    func answer(_ request: CredentialRequest, from index: KeePassIndex, context: ExtensionContext) {
        switch request {
        case .password(let identity):
            guard let entry = index.entry(for: identity) else {
                context.cancelRequest(withError: ExtensionError(.credentialIdentityNotFound, failureReason: "no such entry in the database (removed since it was published?)"))
                return
            }
            complete(context, with: entry)
        case .oneTimeCode(let identity):
            guard let entry = index.entry(for: identity) else {
                context.cancelRequest(withError: ExtensionError(.credentialIdentityNotFound, failureReason: "no such one-time code in the database"))
                return
            }
            complete(context, withCodeOf: entry)
        case .passkeyAssertion(let identity, let parameters):
            assertWithoutUserInteraction(identity, parameters, context: context)
        }
    }

    /// Completes with the entry's user name and password, noting an expired entry in the log.
    func complete(_ context: ExtensionContext, with entry: KDBXEntry) {
        if entry.isExpired() { host.log(.notice, "the entry \"\(entry.title)\" has expired; filled all the same") }
        context.completeRequest(withSelectedCredential: PasswordCredential(user: entry.userName, password: entry.password))
    }

    /// Completes with the entry's current code, or fails naming the entry (never the seed).
    func complete(_ context: ExtensionContext, withCodeOf entry: KDBXEntry) {
        do throws(OTPError) {
            guard let parameters = try KeePassOneTimeCode.parameters(of: entry), parameters.isTimeBased else {
                context.cancelRequest(withError: ExtensionError(.failed, failureReason: "the entry \"\(entry.title)\" has no time-based one-time code"))
                return
            }
            context.completeOneTimeCodeRequest(using: Secret(parameters.code(at: Date())))
        } catch {
            let reason = "the entry \"\(entry.title)\" cannot make one-time codes: \(error.message)"
            host.log(.error, reason)
            context.cancelRequest(withError: ExtensionError(.failed, failureReason: reason))
        }
    }
}
