public import AutofillCore

extension FillRouter {
    /// Creates a passkey with provider `providerID` (which must declare ProvidesPasskeys; see
    /// ``chooseProvider(declaring:id:title:canceled:)``). The host authenticates the user first (its
    /// policy) and tells the provider what it established; the provider's registration UI then runs.
    ///
    /// `matchedExcludedCredential` ends the registration (``FillFailure/excludedCredential(_:)``):
    /// the relying party listed a passkey this provider already holds.
    public func registerPasskey(_ request: PasskeyRegistrationRequest, providerID: String) async throws(FillFailure) -> FillResult {
        guard let manifest = enabledProviders(declaring: .providesPasskeys).first(where: { $0.identifier == providerID }) else {
            throw .nothingToFill("\(providerID) is not an enabled provider that declares ProvidesPasskeys.")
        }
        let connection: any ProviderConnection
        switch connect(manifest) {
        case .success(let connected): connection = connected
        case .failure(let unconnected): return try unconnected.attempt.result()
        }
        let account = "\(request.identity.userName) at \(request.parameters.relyingParty)"
        var request = request
        let host: UserAuthentication
        switch authenticateUser(reason: "create a passkey for \(account) with \(manifest.displayName)", manifest: manifest) {
        case .failure(let failure):
            if case .canceled = failure { throw .canceled("No passkey was created.") }
            throw failure
        case .success(let authentication):
            host = authentication
            request.parameters.hostUserPresent = authentication.userPresent
            request.parameters.hostUserVerified = authentication.userVerified
        }
        request.parameters.hostUserInterfaceScripted = !ui.answersComeFromAPerson
        let rules = AnswerRules(authentication: .before(host), interactive: true, undone: "No passkey was created",
                                checkSuffix: "; no passkey was created", cancelVerb: "did not create the passkey")
        return try await exchange(.passkeyRegistration(request), with: connection, manifest: manifest, rules: rules).result()
    }

    /// The automatic passkey upgrade: asks each enabled provider that declares
    /// SupportsConditionalPasskeyRegistration, in the user's order, through the no-UI entry point
    /// under the no-UI deadline. No UI is ever shown and the host does not authenticate the user;
    /// the first provider that creates the passkey wins. Only a provider whose password the host
    /// delivered for this user at the relying party within ``RecentFills/window`` is asked (and told
    /// so: `hostRecentPasswordFill`): a fill the user declined at the host's authentication never
    /// counts. When none does, ``FillFailure/declined(_:)`` carries each provider's reason (also in
    /// the trace).
    public func registerPasskeyConditionally(_ request: PasskeyRegistrationRequest) async throws(FillFailure) -> FillResult {
        var request = request
        request.parameters.style = .conditional
        request.parameters.hostUserPresent = false
        request.parameters.hostUserVerified = false
        request.parameters.hostUserInterfaceScripted = true  // no UI at all: nobody can answer
        let providers = enabledProviders(declaring: .supportsConditionalPasskeyRegistration)
        guard !providers.isEmpty else {
            throw .declined(["no enabled provider declares SupportsConditionalPasskeyRegistration"])
        }
        var reasons: [String] = []
        let fills = RecentFills(folder: setup.records)
        let account = "\(request.identity.userName) at \(request.parameters.relyingParty)"
        for manifest in providers {
            guard fills.contains(providerID: manifest.identifier, user: request.identity.userName, relyingParty: request.parameters.relyingParty) else {
                let reason = "\(manifest.displayName) was not asked: autofill delivered none of its passwords for \(account) in the last \(Int(RecentFills.window / 60)) minutes"
                trace.note(manifest, "automatic passkey upgrade", reason)
                reasons.append(reason)
                continue
            }
            request.parameters.hostRecentPasswordFill = true
            let connection: any ProviderConnection
            switch connect(manifest) {
            case .success(let connected): connection = connected
            case .failure(let unconnected):
                if case .refused(let message) = unconnected.attempt { reasons.append("\(manifest.displayName) could not be loaded: \(message)") }
                if case .failed(let message) = unconnected.attempt { reasons.append(message) }
                continue
            }
            let none = UserAuthentication(method: .none, userPresent: false, userVerified: false)
            let rules = AnswerRules(authentication: .before(none), interactive: false, declining: true)
            switch await exchange(.conditionalPasskeyRegistration(request), with: connection, manifest: manifest, rules: rules) {
            case .filled(let result): return result
            case .failed(let reason), .refused(let reason): reasons.append(reason)
            case .stop(let failure): reasons.append(failure.description)
            case .needsUserInterface: break
            }
        }
        throw .declined(reasons)
    }

    /// Opens a passkey provider's list during a sign-in (`prepareCredentialList(for:requestParameters:)`):
    /// the user picks one of its passkeys (an assertion, checked like any other) or a password. The
    /// host authenticates the user first, as for any passkey: the provider signs the UP and UV flags.
    public func passkeyFromList(providerID: String, services: [ServiceIdentifier], parameters: PasskeyParameters) async throws(FillFailure) -> FillResult {
        var parameters = parameters
        let manifest: PluginManifest
        do {
            manifest = try setup.catalog.manifest(for: providerID)
        } catch {
            throw .providersFailed(["\(providerID) could not be loaded: \(error)"])
        }
        let host: UserAuthentication
        switch authenticateUser(reason: "sign in to \(parameters.relyingParty) from \(manifest.displayName)'s list", manifest: manifest) {
        case .failure(let failure): throw failure
        case .success(let authentication): host = authentication
        }
        parameters.hostUserPresent = host.userPresent
        parameters.hostUserVerified = host.userVerified
        parameters.hostUserInterfaceScripted = !ui.answersComeFromAPerson  // (list requests do not carry it)
        return try await interfaceRequest(.passkeyCredentialList(services, parameters), manifest: manifest, capability: .providesPasskeys,
                                          authentication: .before(host))
    }

}
