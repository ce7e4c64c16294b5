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
        do {
            connection = try self.connection(for: manifest)
        } catch where error.code == .refused {
            throw .providersRefused([error.description])
        } catch {
            throw .providersFailed(["\(manifest.displayName) could not be loaded: \(error)"])
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
        ui.reset()
        let start = ContinuousClock.now
        let outcome = await connection.send(.passkeyRegistration(request), deadline: nil)
        trace.record(manifest, .prepareInterfaceForPasskeyRegistration, outcome, since: start)
        switch outcome {
        case .completed(let credential):
            if let problem = PasskeyRegistrationCheck.problem(with: credential, for: request) {
                throw .providersFailed(["\(manifest.displayName) answered with \(problem); no passkey was created"])
            }
            let established = ui.established.map { host.combined(with: $0) } ?? host
            if let problem = PasskeyClaimCheck.problem(with: credential, established: established) {
                throw .providersFailed(["\(manifest.displayName) answered with \(problem); no passkey was created"])
            }
            return FillResult(credential: credential, providerID: manifest.identifier, providerName: manifest.displayName,
                              suggestion: nil, authentication: established)
        case .canceled(let error) where error.code == .matchedExcludedCredential:
            throw .excludedCredential(
                "\(manifest.displayName) already holds a passkey the relying party listed in excludeCredentials (\(account)); no passkey was created.")
        case .canceled(let error) where error.code == .userCanceled:
            throw .canceled("No passkey was created: cancelled in \(manifest.displayName).")
        case .canceled(let error):
            if let reason = ui.unavailableReason {
                throw .userInterfaceUnavailable("\(manifest.displayName) needs to ask you something, and \(reason).")
            }
            throw .providersFailed(["\(manifest.displayName) did not create the passkey: \(error.failureReason ?? error.code.description)"])
        case .failed(let failure):
            throw .providersFailed([failure.message])
        }
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
            do {
                connection = try self.connection(for: manifest)
            } catch {
                reasons.append("\(manifest.displayName) could not be loaded: \(error)")
                continue
            }
            let start = ContinuousClock.now
            let outcome = await connection.send(.conditionalPasskeyRegistration(request), deadline: deadline)
            trace.record(manifest, .performPasskeyRegistrationWithoutUserInteraction, outcome, since: start)
            switch outcome {
            case .completed(let credential):
                if let problem = PasskeyRegistrationCheck.problem(with: credential, for: request)
                    ?? PasskeyClaimCheck.problem(with: credential, established: UserAuthentication(method: .none, userPresent: false, userVerified: false)) {
                    reasons.append("\(manifest.displayName) answered with \(problem)")
                    continue
                }
                return FillResult(credential: credential, providerID: manifest.identifier, providerName: manifest.displayName,
                                  suggestion: nil, authentication: UserAuthentication(method: .none, userPresent: false, userVerified: false))
            case .canceled(let error):
                reasons.append("\(manifest.displayName) declined: \(error.failureReason ?? error.code.description)")
            case .failed(let failure):
                reasons.append(failure.message)
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
        let result = try await interfaceRequest(.passkeyCredentialList(services, parameters), manifest: manifest, capability: .providesPasskeys,
                                                authentication: .before(host))
        if case .passkeyAssertion(let assertion) = result.credential,
           let problem = PasskeyResultCheck.problem(with: assertion, parameters: parameters, expectedCredential: nil) {
            throw .providersFailed(["\(result.providerName) answered with \(problem)"])
        }
        return result
    }

}
