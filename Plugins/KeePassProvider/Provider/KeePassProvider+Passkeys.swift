import AutofillProviderKit
import AutofillWebAuthn
import KDBX

/// Sign-in with the passkeys KeePassXC stored: without UI, with UI, and from the passkey list.
/// Registration waits: the provider never writes the database.
extension KeePassProvider: PasskeyCredentialListProviding, PasskeyRegistrationProviding {
    /// No UI: locked → `userInteractionRequired`; UV required and the host did not verify →
    /// `userInteractionRequired`; else the assertion with UP and UV as the host established them.
    func assertWithoutUserInteraction(_ identity: PasskeyCredentialIdentity, _ parameters: PasskeyParameters, context: ExtensionContext) {
        do throws(Access) {
            guard let passkey = passkey(for: identity, parameters, in: try heldIndex(), context: context) else { return }
            if parameters.userVerification == .required && !parameters.hostUserVerified {
                context.cancelRequest(withError: ExtensionError(.userInteractionRequired))
                return
            }
            sign(passkey, parameters, check: .host(parameters), context: context)
        } catch {
            context.cancelRequest(because: error)
        }
    }

    /// With UI: unlocks if locked (UV); else asks for the master password when UV is required and
    /// the host did not verify (UV); else asks to confirm (UP, UV only if the host verified).
    func assertWithInterface(_ identity: PasskeyCredentialIdentity, _ parameters: PasskeyParameters, context: ExtensionContext) {
        do throws(Access) {
            let (index, typed) = try unlock(context: context)
            guard let passkey = passkey(for: identity, parameters, in: index, context: context) else { return }
            sign(passkey, parameters, check: try userCheck(for: passkey, parameters, typed: typed, context: context), context: context)
        } catch {
            context.cancelRequest(because: error)
        }
    }

    func prepareCredentialList(for serviceIdentifiers: [ServiceIdentifier], requestParameters parameters: PasskeyParameters, context: ExtensionContext) {
        do throws(Access) {
            let (index, typed) = try unlock(context: context)
            let passkeys = index.passkeys.filter {
                $0.relyingParty == parameters.relyingParty && PasskeyAssertion.problem(with: parameters, identity: nil, credentialID: $0.credentialID) == nil
            }
            let logins = index.logins(for: serviceIdentifiers)
            guard !passkeys.isEmpty || !logins.isEmpty else {
                context.cancelRequest(withError: ExtensionError(.failed, failureReason: "the database has no passkey for \(parameters.relyingParty) and no logins"))
                return
            }
            let items = passkeys.map { "\($0.userName) — passkey for \($0.relyingParty)" } + logins.map { KeePassIndex.line($0) }
            let chosen: Int
            do throws(UserInterfaceError) {
                chosen = try context.choose(title: "\(Self.name): choose a passkey or login", items: items)
            } catch {
                context.cancelRequest(after: error, doing: "choosing a passkey or login")
                return
            }
            guard items.indices.contains(chosen) else { throw .failed(ExtensionError(.userCanceled)) }
            guard chosen < passkeys.count else {
                complete(context, with: logins[chosen - passkeys.count])
                return
            }
            if let problem = PasskeyAssertion.clientDataHashProblem(parameters) { throw .failed(ExtensionError(.failed, failureReason: problem)) }
            var check = UserCheck(present: true, verified: typed)  // choosing is presence
            if parameters.userVerification == .required && !typed {
                try verifyMasterPassword(context: context, for: "\(parameters.relyingParty) asks to verify it's you.")
                check = .masterPassword
            }
            sign(passkeys[chosen], parameters, check: check, context: context)
        } catch {
            context.cancelRequest(because: error)
        }
    }

    func prepareInterface(forPasskeyRegistration registrationRequest: PasskeyRegistrationRequest, context: ExtensionContext) {
        context.cancelRequest(withError: ExtensionError(.failed, failureReason: """
            the KeePassXC provider reads the database and never writes it, so it cannot save a new passkey; \
            register it with KeePassXC's browser integration (or choose another provider)
            """))
    }

    // MARK: Shared steps

    /// The database's passkey for the picked identity, or nil after cancelling `context` with the reason.
    func passkey(for identity: PasskeyCredentialIdentity, _ parameters: PasskeyParameters, in index: KeePassIndex,
                 context: ExtensionContext) -> KeePassPasskey? {
        if let problem = PasskeyAssertion.problem(with: parameters, identity: identity, credentialID: identity.credentialID) {
            context.cancelRequest(withError: ExtensionError(.failed, failureReason: problem))
            return nil
        }
        guard let passkey = index.passkey(relyingParty: parameters.relyingParty, credentialID: identity.credentialID) else {
            context.cancelRequest(withError: ExtensionError(.credentialIdentityNotFound, failureReason: "no such passkey for \(parameters.relyingParty) in the database"))
            return nil
        }
        return passkey
    }

    /// What the UI establishes about the user for `passkey`: a typed master password verifies; UV
    /// required and not verified asks for it; otherwise a confirmation is presence.
    func userCheck(for passkey: KeePassPasskey, _ parameters: PasskeyParameters, typed: Bool, context: ExtensionContext) throws(Access) -> UserCheck {
        if typed { return .masterPassword }
        if parameters.userVerification == .required && !parameters.hostUserVerified {
            try verifyMasterPassword(context: context, for: "\(passkey.relyingParty) asks to verify it's you.")
            return .masterPassword
        }
        let confirmed: Bool
        do {
            confirmed = try context.confirm(title: "\(Self.name): sign in with a passkey",
                                            message: "Sign in to \(passkey.relyingParty) as \(passkey.userName) with your passkey?")
        } catch .canceled {
            throw .failed(ExtensionError(.userCanceled))
        } catch {
            throw .failed(ExtensionError(.failed, failureReason: "confirming needs the host's UI; run in a terminal"))
        }
        guard confirmed else { throw .failed(ExtensionError(.userCanceled)) }
        return UserCheck(present: true, verified: parameters.hostUserVerified)
    }

    /// Signs and completes with `check`'s flags (made honest for a scripted UI).
    func sign(_ passkey: KeePassPasskey, _ parameters: PasskeyParameters, check: UserCheck, context: ExtensionContext) {
        let check = check.honest(for: parameters)
        do throws(KeePassPasskeyError) {
            let result = context.completeAssertionRequest(using: try passkey.assertion(parameters, check: check))
            host.log(.info, "passkey assertion for \(passkey.relyingParty), \(check.present ? "UP" : "no UP") \(check.verified ? "UV" : "no UV"): \(result)")
        } catch {
            host.log(.error, error.message)
            context.cancelRequest(withError: ExtensionError(.failed, failureReason: error.message))
        }
    }
}
