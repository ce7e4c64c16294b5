public import AutofillCore
public import AutofillMatching

/// Where a save, a generated password or a credential-update report goes, and how it is sent
/// (iOS 26's entry points). Only providers whose plist declares the capability receive them.
///
/// **Which provider saves** (`autofill save`): the one named with `--provider ID` (it must be
/// enabled and declare `SupportsSavePasswordCredentials`); else the first provider, in the
/// user's order, whose identity store holds a login for that user matching the site (as
/// `autofill suggest SITE` shows them) and that declares the capability; else the first enabled
/// provider that declares it. Replacing a login the store already shows is authenticated like a
/// fill (the `UserAuthentication` policy); adding a new one is not. A WebAuthn signal (it removes or
/// renames passkeys) is authenticated too; an unused-password report (it lowers a rank) is not.
extension FillRouter {
    /// Saves `credential` for `query`'s site with the provider the rule above chooses.
    public func savePassword(_ credential: PasswordCredential, for query: ServiceQuery, providerID: String?) async throws -> FillResult {
        let (manifest, replaces) = try saveTarget(for: query, user: credential.user, providerID: providerID)
        let site = query.name.description
        if replaces {
            let reason = "replace the password of \(credential.user) at \(site) in \(manifest.displayName)"
            if case .failure(let failure) = authenticateUser(reason: reason, manifest: manifest, outcome: "saved") { throw failure }
        }
        let service = query.serviceIdentifiers.first ?? ServiceIdentifier(identifier: site, type: .domain)
        let request = SavePasswordRequest(serviceIdentifier: service, credential: credential)
        return try await interfaceRequest(.savePassword(request), manifest: manifest, capability: .supportsSavePasswordCredentials,
                                          authentication: .notNeeded, outcome: "saved")
    }

    /// The provider that gets a save for `user` at `query`'s site, and whether its store already
    /// holds that login (the save replaces it).
    public func saveTarget(for query: ServiceQuery, user: String, providerID: String?) throws -> (PluginManifest, replaces: Bool) {
        let savers = enabledProviders(declaring: .supportsSavePasswordCredentials)
        let holders = try holders(of: .password, for: query) { $0.displayUser == user }
        if let providerID {
            guard let manifest = savers.first(where: { $0.identifier == providerID }) else {
                throw AutofillError(.usage, "\(providerID) is not an enabled provider with SupportsSavePasswordCredentials")
            }
            return (manifest, holders.contains(providerID))
        }
        if let holder = savers.first(where: { holders.contains($0.identifier) }) { return (holder, true) }
        guard let first = savers.first else {
            throw FillFailure.nothingToFill("No enabled provider declares SupportsSavePasswordCredentials; nothing was saved.")
        }
        return (first, false)
    }

    /// Asks a provider for a password for `query`'s site that honours `rules` (Apple's passwordrules
    /// text, parsed by the caller); the host checks the answer against them.
    public func generatePassword(for query: ServiceQuery, rules: String?, providerID: String?) async throws -> FillResult {
        let manifest = try chooseProvider(declaring: .supportsGeneratePasswordCredentials, id: providerID,
                                          title: "Which provider generates the password?", canceled: "Nothing was generated.")
        let service = query.serviceIdentifiers.first ?? ServiceIdentifier(identifier: query.name.description, type: .domain)
        return try await interfaceRequest(.generatePassword(GeneratePasswordRequest(serviceIdentifier: service, passwordRules: rules)),
                                          manifest: manifest, capability: .supportsGeneratePasswordCredentials,
                                          authentication: .notNeeded, outcome: "generated")
    }

    /// Sends `update` to each enabled provider that declares `SupportsCredentialUpdate` and holds
    /// what it names (a login for the user at the site; a passkey at the relying party), or only to
    /// `providerID`; the names of the providers that handled it. Fails when none holds it, and with
    /// the providers' failures when none handled it.
    public func reportCredentialUpdate(_ update: CredentialUpdate, providerID: String?) async throws -> [String] {
        let query: ServiceQuery
        do {
            query = try ServiceQuery(update.service)
        } catch {
            throw AutofillError(.invalidData, "\(error)")
        }
        let holders: Set<String>
        switch update {
        case .unusedPassword(_, let user):
            holders = try self.holders(of: .password, for: query) { $0.displayUser == user }
        default:
            holders = try self.holders(of: .passkey, for: query) { identity in
                if case .passkey(let passkey) = identity { passkey.relyingPartyIdentifier == update.service } else { false }
            }
        }
        let updaters = enabledProviders(declaring: .supportsCredentialUpdate)
        if let providerID, !updaters.contains(where: { $0.identifier == providerID }) {
            throw AutofillError(.usage, "\(providerID) is not an enabled provider with SupportsCredentialUpdate")
        }
        let targets = updaters.filter { holders.contains($0.identifier) && (providerID == nil || $0.identifier == providerID) }
        guard !targets.isEmpty else {
            throw FillFailure.nothingToFill("No enabled provider with SupportsCredentialUpdate holds the \(update); nothing was reported.")
        }
        var handled: [String] = [], failures: [String] = []
        for manifest in targets {
            // A signal removes or renames passkeys: only the user may, never a script on their behalf
            // (the UserAuthentication policy, as for replacing a password). An unused-password report
            // only lowers a login's rank, and git sends it without a person: it is not asked about.
            if update.isPasskeySignal {
                let reason = "apply the \(update) in \(manifest.displayName)"
                if case .failure(let failure) = authenticateUser(reason: reason, manifest: manifest, outcome: "reported") { throw failure }
            }
            do {
                _ = try await interfaceRequest(.credentialUpdate(update), manifest: manifest, capability: .supportsCredentialUpdate,
                                               authentication: .notNeeded, outcome: "reported")
                handled.append(manifest.displayName)
            } catch {
                failures.append("\(error)")
            }
        }
        guard !handled.isEmpty else { throw FillFailure.providersFailed(failures) }
        for failure in failures { notify(failure) }
        return handled
    }

    /// The ids of providers whose store holds an identity of `kind` matching `query` for which `accepts` holds.
    func holders(of kind: CredentialIdentity.Kind, for query: ServiceQuery, _ accepts: (CredentialIdentity) -> Bool) throws -> Set<String> {
        let engine = SuggestionEngine(catalog: setup.catalog, directory: setup.stores)
        let suggestions = try AutofillError.fromStore { () throws(IdentityStoreError) in try engine.suggestions(for: query, kinds: [kind]) }
        return Set(suggestions.filter { accepts($0.identity) }.map(\.providerID))
    }
}
