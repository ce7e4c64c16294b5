import AutofillProviderKit
import AutofillWebAuthn
import VaultCore

/// Creating passkeys: with the user (UI) and as an automatic upgrade after a password sign-in (no UI).
extension VaultProvider: PasskeyRegistrationProviding, ConditionalPasskeyRegistrationProviding {
    /// Unlocks if needed; an excluded credential the vault holds → `matchedExcludedCredential`; no
    /// ES256 among the algorithms → `failed`; asks to confirm unless the host already did (UP; UV
    /// when the master password was typed or the host verified), then creates, saves and publishes
    /// the passkey and completes with a `fmt: "none"` attestation object.
    func prepareInterface(forPasskeyRegistration request: PasskeyRegistrationRequest, context: ExtensionContext) {
        serving { registerWithInterface(request, context: context) }
    }

    /// ``prepareInterface(forPasskeyRegistration:context:)``'s work, as one request.
    private func registerWithInterface(_ request: PasskeyRegistrationRequest, context: ExtensionContext) {
        if let problem = registrationProblem(request) {
            context.cancelRequest(withError: ExtensionError(.failed, failureReason: problem))
            return
        }
        do throws(Access) {
            let (vault, typed) = try unlock(context: context)
            if let excluded = excludedPasskey(request, in: vault) {
                context.cancelRequest(withError: excludedError(excluded))
                return
            }
            let parameters = request.parameters
            var check = UserCheck(present: true, verified: typed || parameters.hostUserVerified)
            if parameters.userVerification == .required && !check.verified {
                try verifyMasterPassword(context: context, of: vault, for: "\(parameters.relyingParty) asks to verify it's you.")
                check = .masterPassword
            }
            // The host's own prompt already named this passkey and this vault: asking again adds nothing.
            if !parameters.hostUserPresent {
                try confirm(context, title: "\(Self.name): create a passkey", message: """
                    Create a passkey for \(request.identity.userName) at \(parameters.relyingParty) in \(Self.name)?
                    """)
            }
            register(request, in: vault, check: check, lockWait: Self.uiLockWait, context: context)
        } catch {
            context.cancelRequest(because: error)
        }
    }

    /// Automatic passkey upgrade: never any UI. Accepted only when upgrades are on
    /// (`ConditionalRegistrationWindowSeconds` is not 0), the host says it delivered one of this
    /// vault's passwords for the user at the relying party recently (`hostRecentPasswordFill`: only
    /// fills the user accepted count), the vault is unlocked, a saved password for the relying party
    /// (its host or a subdomain) has the same user name, and that account has no passkey for the
    /// relying party yet. Each refusal is `failed` naming the rule; UP and UV are not set.
    func performWithoutUserInteractionIfPossible(passkeyRegistration request: PasskeyRegistrationRequest, context: ExtensionContext) {
        serving { registerWithoutUserInteraction(request, context: context) }
    }

    /// ``performWithoutUserInteractionIfPossible(passkeyRegistration:context:)``'s work, as one request.
    private func registerWithoutUserInteraction(_ request: PasskeyRegistrationRequest, context: ExtensionContext) {
        let parameters = request.parameters
        let user = request.identity.userName
        let rp = parameters.relyingParty
        func refuse(_ reason: String) {
            host.log(.info, "automatic passkey upgrade refused: \(reason)")
            context.cancelRequest(withError: ExtensionError(.failed, failureReason: reason))
        }
        if let problem = registrationProblem(request) { return refuse(problem) }
        guard conditionalWindow > 0 else { return refuse("automatic passkey upgrades are off (ConditionalRegistrationWindowSeconds is 0)") }
        guard parameters.hostRecentPasswordFill else {
            return refuse("autofill did not deliver a password of this vault for \(user) at \(rp) recently")
        }
        let vault: UnlockedVault
        do throws(Access) {
            vault = try heldVault()
        } catch {
            switch error {
            case .locked: return refuse("the vault is locked (an automatic upgrade never asks for the master password)")
            case .failed(let error): return refuse(error.failureReason ?? "the vault cannot be opened")
            }
        }
        if let excluded = excludedPasskey(request, in: vault) {
            context.cancelRequest(withError: excludedError(excluded))
            return
        }
        let logins = vault.index.passwords(user: user).filter { login in
            guard let host = ServiceInput.host(of: login.service.identifier) else { return false }
            return host == rp.lowercased() || host.hasSuffix("." + rp.lowercased())
        }
        guard !logins.isEmpty else { return refuse("the vault has no saved password for \(user) at \(rp) or its subdomains") }
        guard !vault.index.passkeys(relyingParty: rp).contains(where: {
            $0.userName == user || $0.userHandle == request.identity.userHandle
        }) else {
            return refuse("\(user) already has a passkey for \(rp)")
        }
        register(request, in: vault, check: .nobody, lockWait: Self.noUILockWait, context: context)
    }

    // MARK: Shared steps

    /// Why the request cannot be served whatever the vault holds: a bad client data hash, no ES256
    /// among the algorithms, or a relying party or user the vault cannot store. Nil when fine.
    func registrationProblem(_ request: PasskeyRegistrationRequest) -> String? {
        let parameters = request.parameters
        guard parameters.clientDataHash.count == 32 else {
            return "the client data hash has \(parameters.clientDataHash.count) bytes; it must be the 32-byte SHA-256 of clientDataJSON"
        }
        // An empty list: WebAuthn's default parameters (ES256 and RS256) include ES256.
        guard parameters.algorithms.isEmpty || parameters.algorithms.contains(COSEKey.es256Algorithm) else {
            let asked = parameters.algorithms.map(String.init).joined(separator: ", ")
            return "\(parameters.relyingParty) accepts only the COSE algorithms \(asked); \(Self.name) creates ES256 (-7) passkeys only"
        }
        let identity = request.identity
        guard identity.relyingPartyIdentifier.isEmpty || identity.relyingPartyIdentifier == parameters.relyingParty else {
            return "the new passkey is for \(identity.relyingPartyIdentifier), the request for \(parameters.relyingParty)"
        }
        do {
            try PasskeyEntry.checkAccount(relyingParty: parameters.relyingParty, userName: identity.userName, userHandle: identity.userHandle)
        } catch {
            return error.message
        }
        return nil
    }

    /// The vault's passkey among the request's `excludeCredentials`, if any.
    func excludedPasskey(_ request: PasskeyRegistrationRequest, in vault: UnlockedVault) -> PasskeyEntry? {
        vault.index.passkeys(relyingParty: request.parameters.relyingParty).first { request.parameters.credentialIDs.contains($0.credentialID) }
    }

    func excludedError(_ passkey: PasskeyEntry) -> ExtensionError {
        ExtensionError(.matchedExcludedCredential, failureReason: """
            \(Self.name) already holds a passkey for \(passkey.userName) at \(passkey.relyingParty) that the site excludes
            """)
    }

    /// Creates the passkey, saves it in the vault (and the memory) and its identity in the store, and
    /// completes with the attestation object; removes it again if the host does not take the answer.
    func register(
        _ request: PasskeyRegistrationRequest, in vault: UnlockedVault, check: UserCheck, lockWait: Double, context: ExtensionContext
    ) {
        let parameters = request.parameters
        let check = check.honest(for: parameters)
        do {
            let passkey = try PasskeyEntry.generate(
                relyingParty: parameters.relyingParty, userName: request.identity.userName, userHandle: request.identity.userHandle)
            let registration = try passkey.registration(
                clientDataHash: parameters.clientDataHash, userPresent: check.present, userVerified: check.verified)
            let saved = try vault.vault.update(waitingAtMost: lockWait) { contents in try contents.add(.passkey(passkey)) }
            memory.adopt(saved.vault)
            publish(saved.changes, of: saved.vault, context: context)
            let result = context.completeRegistrationRequest(using: registration)
            host.log(.info, """
                passkey created for \(parameters.relyingParty) (\(check.present ? "UP" : "no UP") \(check.verified ? "UV" : "no UV")): \(result)
                """)
            guard result != .accepted else { return }
            let removed = try saved.vault.update(waitingAtMost: lockWait) { contents in contents.remove(id: passkey.id) }
            memory.adopt(removed.vault)
            publish(removed.changes, of: removed.vault, context: context)
            host.log(.notice, "the host did not take the new passkey; it was removed from the vault again")
        } catch let error as VaultError {
            host.log(.error, "\(error.message)")
            context.cancelRequest(withError: ExtensionError(.failed, failureReason: error.message))
        } catch {
            host.log(.error, "passkey registration failed: \(error)")
            context.cancelRequest(withError: ExtensionError(.failed, failureReason: "the passkey could not be created"))
        }
    }

    /// Writes identity changes to the provider's store; a failure is logged (`autofill-vault sync` repairs it).
    func publish(_ changes: IdentityChanges, of vault: Vault, context: ExtensionContext) {
        do {
            host.log(.info, "\(try IdentityPublisher.publish(changes, all: vault.contents.identities, to: context.host.identityStore))")
        } catch {
            host.log(.warning, "the vault was saved, but the identity store was not updated (run autofill-vault sync): \(error)")
        }
    }
}
