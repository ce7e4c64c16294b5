import AutofillProviderKit
import AutofillWebAuthn
import VaultCore

/// Passkey sign-in: without UI, with UI, and from the passkey list.
extension VaultProvider: PasskeyCredentialListProviding {
    /// No UI: locked → `userInteractionRequired`; unknown credential → `credentialIdentityNotFound`;
    /// UV required and the host did not verify → `userInteractionRequired`; else the assertion, with
    /// UP and UV exactly as the host established them.
    func assertWithoutUserInteraction(_ identity: PasskeyCredentialIdentity, _ parameters: PasskeyParameters, context: ExtensionContext) {
        let vault: UnlockedVault
        do throws(Access) {
            vault = try heldVault()
        } catch {
            context.cancelRequest(because: error)
            return
        }
        guard let passkey = passkey(for: identity, parameters, in: vault, context: context) else { return }
        if parameters.userVerification == .required && !parameters.hostUserVerified {
            host.log(.info, "\(parameters.relyingParty) requires user verification and the host did not verify: asking for the UI")
            context.cancelRequest(withError: ExtensionError(.userInteractionRequired))
            return
        }
        sign(passkey, of: vault, parameters, check: .host(parameters), lockWait: Self.noUILockWait, context: context)
    }

    /// With UI: unlocks if locked (UV); else asks for the master password when UV is required and the
    /// host did not verify (UV); else asks to confirm (UP, and UV only if the host verified).
    func assertWithInterface(_ identity: PasskeyCredentialIdentity, _ parameters: PasskeyParameters, context: ExtensionContext) {
        do throws(Access) {
            let (vault, typed) = try unlock(context: context)
            guard let passkey = passkey(for: identity, parameters, in: vault, context: context) else { return }
            let check: UserCheck
            if typed {
                check = .masterPassword
            } else if parameters.userVerification == .required && !parameters.hostUserVerified {
                try verifyMasterPassword(context: context, of: vault, for: "\(passkey.relyingParty) asks to verify it's you.")
                check = .masterPassword
            } else {
                try confirm(context, title: "\(Self.name): sign in with a passkey",
                            message: "Sign in to \(passkey.relyingParty) as \(passkey.userName) with your passkey?")
                check = UserCheck(present: true, verified: parameters.hostUserVerified)
            }
            sign(passkey, of: vault, parameters, check: check, lockWait: Self.uiLockWait, context: context)
        } catch {
            context.cancelRequest(because: error)
        }
    }

    /// The list during a passkey sign-in: the relying party's passkeys (those `allowCredentials`
    /// permits), then the logins, matching ones first; completes with an assertion or a password.
    func prepareCredentialList(
        for serviceIdentifiers: [ServiceIdentifier], requestParameters parameters: PasskeyParameters, context: ExtensionContext
    ) {
        serving { passkeyList(for: serviceIdentifiers, parameters, context: context) }
    }

    /// ``prepareCredentialList(for:requestParameters:context:)``'s work, as one request.
    private func passkeyList(for serviceIdentifiers: [ServiceIdentifier], _ parameters: PasskeyParameters, context: ExtensionContext) {
        do throws(Access) {
            let (vault, typed) = try unlock(context: context)
            let passkeys = vault.index.passkeys(relyingParty: parameters.relyingParty).filter {
                parameters.credentialIDs.isEmpty || parameters.credentialIDs.contains($0.credentialID)
            }
            let logins = ServiceInput.ordered(vault.index.passwords, by: \.service, for: serviceIdentifiers)
            guard !passkeys.isEmpty || !logins.isEmpty else {
                context.cancelRequest(withError: ExtensionError(.failed, failureReason: "the vault has no passkey for \(parameters.relyingParty) and no logins"))
                return
            }
            let items = passkeys.map { "\($0.userName) — passkey for \($0.relyingParty)" }
                + logins.map { "\($0.user) — password for \($0.service.identifier)" }
            let index: Int
            do throws(UserInterfaceError) {
                index = try context.choose(title: "\(Self.name): choose a passkey or login", items: items)
            } catch {
                context.cancelRequest(after: error, doing: "choosing a passkey or login")
                return
            }
            guard index < passkeys.count else {
                complete(context, with: logins[index - passkeys.count])
                return
            }
            let passkey = passkeys[index]
            guard checkClientDataHash(parameters, context: context) else { return }
            var check = UserCheck(present: true, verified: typed)  // choosing is presence
            if parameters.userVerification == .required && !typed {
                try verifyMasterPassword(context: context, of: vault, for: "\(passkey.relyingParty) asks to verify it's you.")
                check = .masterPassword
            }
            sign(passkey, of: vault, parameters, check: check, lockWait: Self.uiLockWait, context: context)
        } catch {
            context.cancelRequest(because: error)
        }
    }

    // MARK: Shared steps

    /// The vault's passkey for the picked identity, or nil after cancelling `context` with the reason.
    func passkey(
        for identity: PasskeyCredentialIdentity, _ parameters: PasskeyParameters, in vault: UnlockedVault, context: ExtensionContext
    ) -> PasskeyEntry? {
        if let problem = PasskeyAssertion.problem(with: parameters, identity: identity, credentialID: nil) {
            context.cancelRequest(withError: ExtensionError(.failed, failureReason: problem))
            return nil
        }
        guard let passkey = vault.index.passkey(relyingParty: parameters.relyingParty, credentialID: identity.credentialID) else {
            context.cancelRequest(withError: ExtensionError(.credentialIdentityNotFound,
                                                            failureReason: "no such passkey for \(parameters.relyingParty) in the vault"))
            return nil
        }
        if let problem = PasskeyAssertion.problem(with: parameters, identity: nil, credentialID: passkey.credentialID) {
            context.cancelRequest(withError: ExtensionError(.failed, failureReason: problem))
            return nil
        }
        return passkey
    }

    /// Whether the client data hash is a SHA-256 (32 bytes); cancels `context` with the reason if not.
    func checkClientDataHash(_ parameters: PasskeyParameters, context: ExtensionContext) -> Bool {
        guard let problem = PasskeyAssertion.clientDataHashProblem(parameters) else { return true }
        context.cancelRequest(withError: ExtensionError(.failed, failureReason: problem))
        return false
    }

    /// Counts the assertion in the vault (saved before anything is handed out, and kept in memory),
    /// then signs and completes with the new counter and `check`'s flags.
    func sign(
        _ passkey: PasskeyEntry, of vault: UnlockedVault, _ parameters: PasskeyParameters, check: UserCheck, lockWait: Double,
        context: ExtensionContext
    ) {
        let check = check.honest(for: parameters)
        do {
            let saved = try vault.vault.update(waitingAtMost: lockWait) { contents in try contents.countAssertion(ofPasskey: passkey.id) }
            memory.adopt(saved.vault)
            let counted = saved.result
            let assertion = try counted.assertion(
                clientDataHash: parameters.clientDataHash, userPresent: check.present, userVerified: check.verified)
            let result = context.completeAssertionRequest(using: assertion)
            host.log(.info, """
                passkey assertion for \(passkey.relyingParty), counter \(counted.signCount), \
                \(check.present ? "UP" : "no UP") \(check.verified ? "UV" : "no UV"): \(result)
                """)
        } catch let error as VaultError {
            host.log(.error, "\(error.message)")
            context.cancelRequest(withError: ExtensionError(.failed, failureReason: error.message))
        } catch {
            host.log(.error, "passkey assertion failed: \(error)")
            context.cancelRequest(withError: ExtensionError(.failed, failureReason: "the passkey could not sign"))
        }
    }

    /// Asks yes or no; a no is `userCanceled`, no UI is a failure naming what needed it.
    func confirm(_ context: ExtensionContext, title: String, message: String) throws(Access) {
        let confirmed: Bool
        do {
            confirmed = try context.confirm(title: title, message: message)
        } catch .canceled {
            throw .failed(ExtensionError(.userCanceled))
        } catch {
            throw .failed(ExtensionError(.failed, failureReason: "confirming needs the host's UI; run in a terminal"))
        }
        guard confirmed else { throw .failed(ExtensionError(.userCanceled)) }
    }
}
