public import AutofillCore
public import AutofillMatching

/// Where a save, a generated password or a credential-update report goes, and how it is sent
/// (iOS 26's entry points). Only providers whose plist declares the capability receive them.
///
/// **Which provider writes** (`autofill save`, `autofill generate`, git's `store`): the one named
/// with `--provider ID` (it must be enabled and declare the capability); else the first provider,
/// in the user's order, whose identity store holds a login for that user matching the site (as
/// `autofill suggest SITE` shows them) and that declares the capability; else the first enabled
/// provider that declares it (a *writable* provider). When the providers holding the login cannot
/// write, the user is told that the login is added to another store. With no writable provider the
/// command fails before anything is asked (``writeTarget(declaring:for:user:providerID:)``).
/// Replacing a login the store already shows is authenticated like a fill (the
/// `UserAuthentication` policy); adding a new one is not. A WebAuthn signal (it removes or renames
/// passkeys) is authenticated too; an unused-password report (it lowers a rank) is not. Reports go
/// to every provider that holds what they name and declares `SupportsCredentialUpdate`.
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
        try writeTarget(declaring: .supportsSavePasswordCredentials, for: query, user: user, providerID: providerID)
    }

    /// The provider that writes with `capability` for `user` (nil: any) at `query`'s site, by the
    /// rule above, and whether its store already holds that login. Throws a usage error for a
    /// `providerID` that is not an enabled provider declaring `capability`, and
    /// `FillFailure.nothingToFill` (naming the capability) when no enabled provider declares it.
    public func writeTarget(declaring capability: Capability, for query: ServiceQuery, user: String?,
                            providerID: String?) throws -> (PluginManifest, replaces: Bool) {
        let writers = enabledProviders(declaring: capability)
        var holders: Set<String> = []
        if let user { holders = try self.holders(of: .password, for: query) { $0.displayUser == user } }
        if let providerID {
            guard let manifest = writers.first(where: { $0.identifier == providerID }) else {
                let ids = writers.map(\.identifier)
                throw AutofillError(.usage, "\(providerID) is not an enabled provider with \(capability.plistKey)\(KeySpelling.didYouMean(providerID, among: ids))")
            }
            return (manifest, holders.contains(providerID))
        }
        if let holder = writers.first(where: { holders.contains($0.identifier) }) { return (holder, true) }
        guard let first = writers.first else { throw FillFailure.nothingToFill(Self.nothingWrites(capability)) }
        let readOnly = setup.catalog.enabledIDs.filter(holders.contains).compactMap { try? setup.catalog.manifest(for: $0).displayName }
        if let user, !readOnly.isEmpty {
            notify("\(readOnly.joined(separator: ", ")) hold\(readOnly.count == 1 ? "s" : "") \(user)'s login at \(query.name.description) but cannot write it (no \(capability.plistKey)); \(first.displayName) gets it.")
        }
        return (first, false)
    }

    /// Why nothing was written: no enabled provider declares `capability`, and what to do.
    static func nothingWrites(_ capability: Capability) -> String {
        let what = capability == .supportsGeneratePasswordCredentials ? "generated" : "saved"
        return "No enabled provider declares \(capability.plistKey); nothing was \(what). Enable one that does "
            + "(`autofill providers list` shows each provider's capabilities), or pass --provider ID."
    }

    /// Asks a provider for a password for `query`'s site that honours `rules` (Apple's passwordrules
    /// text, parsed by the caller); the host checks the answer against them. The provider is chosen
    /// as a save's is: the one holding `user`'s login there, else the first that generates.
    public func generatePassword(for query: ServiceQuery, rules: String?, user: String? = nil, providerID: String?) async throws -> FillResult {
        let (manifest, _) = try writeTarget(declaring: .supportsGeneratePasswordCredentials, for: query, user: user, providerID: providerID)
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

    /// Whether the host filled `user`'s password at `query`'s host from a provider that holds that
    /// login, within ``RecentFills/window`` (``RecentFills``: no password is kept, only who and where).
    public func filledRecently(user: String, for query: ServiceQuery) throws -> Bool {
        let fills = RecentFills(folder: setup.records)
        return try holders(of: .password, for: query) { $0.displayUser == user }
            .contains { fills.contains(providerID: $0, user: user, relyingParty: query.name.hostText) }
    }

    /// The ids of providers whose store holds an identity of `kind` matching `query` for which `accepts` holds.
    func holders(of kind: CredentialIdentity.Kind, for query: ServiceQuery, _ accepts: (CredentialIdentity) -> Bool) throws -> Set<String> {
        let engine = SuggestionEngine(catalog: setup.catalog, directory: setup.stores)
        let suggestions = try AutofillError.fromStore { () throws(IdentityStoreError) in try engine.suggestions(for: query, kinds: [kind]) }
        return Set(suggestions.filter { accepts($0.identity) }.map(\.providerID))
    }
}
