internal import AutofillCore

/// The one place a provider's answer becomes a result or a failure: passwords, one-time codes, text,
/// passkeys (assertions and registrations), lists, saves, generated passwords and reports all go
/// through ``FillRouter/exchange(_:with:manifest:rules:)``.
extension FillRouter {
    /// One request's end, for the router to act on.
    enum Attempt {
        case filled(FillResult)
        /// The provider failed (a fill falls back to the next suggestion when it may).
        case failed(String)
        /// The provider was not run: the host refused it (trust, permissions, quarantine).
        case refused(String)
        /// The request ends the whole command (the user cancelled, was not authenticated, …).
        case stop(FillFailure)
        /// The no-UI request needs the provider's UI (`userInteractionRequired`).
        case needsUserInterface

        /// The result, or the failure a single request ends with.
        func result() throws(FillFailure) -> FillResult {
            switch self {
            case .filled(let result): return result
            case .failed(let message): throw .providersFailed([message])
            case .refused(let message): throw .providersRefused([message])
            case .stop(let failure): throw failure
            case .needsUserInterface: throw .providersFailed(["a provider needed its UI where none may run"])
            }
        }
    }

    /// How an answer is judged: what it is for, and what the host established about the user.
    struct AnswerRules {
        /// How the result is authenticated.
        var authentication: AnswerAuthentication
        /// Whether the provider's UI may run (its entry point takes no deadline, and what its UI
        /// established counts); false for the no-UI entry points.
        var interactive: Bool
        /// What did not happen when the request ends without a result: "Nothing was filled".
        var undone = "Nothing was filled"
        /// The suggestion filled, if the request fills one: an identity the provider no longer has
        /// clears its store.
        var suggestion: Suggestion?
        /// Appended to a check's finding: "; no passkey was created".
        var checkSuffix = ""
        /// What a provider that cancelled did: "failed", "did not create the passkey".
        var cancelVerb = "failed"
        /// Every cancel is a provider declining (the automatic passkey upgrade, which asks each in turn).
        var declining = false
    }

    /// How an answer's result is authenticated.
    enum AnswerAuthentication {
        /// Nothing secret comes back (configuration, a save, a generated password, a report).
        case notNeeded
        /// The policy is applied after the provider completed, unless its UI established enough (or
        /// `chosen`, the user's pick from the list at the terminal, did). `purpose` says what for
        /// ("insert text"), shown with the provider's name.
        case afterwards(String, chosen: UserAuthentication? = nil)
        /// The host authenticated before the request (passkeys: the provider signs the flags); the
        /// credential may claim no more than that (``PasskeyClaimCheck``).
        case before(UserAuthentication)
    }

    /// Why a provider's connection could not be had: the attempt's end.
    struct Unconnected: Error {
        let attempt: Attempt
    }

    /// The connection of `manifest`'s provider (``connection(for:)``), or the attempt's end: refused
    /// (trust, permissions, quarantine) or failed (it could not be loaded).
    func connect(_ manifest: PluginManifest) -> Result<any ProviderConnection, Unconnected> {
        do {
            return .success(try connection(for: manifest))
        } catch where error.code == .refused {
            return .failure(Unconnected(attempt: .refused(error.description)))
        } catch {
            return .failure(Unconnected(attempt: .failed("\(manifest.displayName) could not be loaded: \(error)")))
        }
    }

    /// Sends `request` to `manifest`'s provider over `connection` and settles its answer by `rules`.
    func exchange(_ request: ProviderRequest, with connection: any ProviderConnection, manifest: PluginManifest,
                  rules: AnswerRules) async -> Attempt {
        if rules.interactive { ui.reset() }
        let start = ContinuousClock.now
        let outcome = await connection.send(request, deadline: rules.interactive ? nil : deadline)
        trace.record(manifest, request.entryPoint, outcome, since: start)
        return settle(outcome, of: request, from: manifest, rules: rules)
    }

    /// What `outcome`, the answer to `request`, comes to.
    func settle(_ outcome: ProviderOutcome, of request: ProviderRequest, from manifest: PluginManifest, rules: AnswerRules) -> Attempt {
        switch outcome {
        case .completed(let credential):
            return accept(credential, of: request, from: manifest, rules: rules)
        case .canceled(let error):
            return canceled(error, of: request, from: manifest, rules: rules)
        case .failed(let failure):
            return .failed(failure.message)
        }
    }

    /// What a provider's cancel comes to.
    private func canceled(_ error: ExtensionError, of request: ProviderRequest, from manifest: PluginManifest, rules: AnswerRules) -> Attempt {
        let name = manifest.displayName
        let reason = error.failureReason ?? error.code.description
        if rules.declining { return .failed("\(name) declined: \(reason)") }
        switch error.code {
        case .userInteractionRequired where !rules.interactive:
            return .needsUserInterface
        case .matchedExcludedCredential:
            if case .passkeyRegistration(let registration) = request {
                let account = "\(registration.identity.userName) at \(registration.parameters.relyingParty)"
                return .stop(.excludedCredential(
                    "\(name) already holds a passkey the relying party listed in excludeCredentials (\(account)); no passkey was created."))
            }
        case .userCanceled:
            return .stop(.canceled("\(rules.undone): cancelled in \(name)."))
        case .credentialIdentityNotFound:
            if let suggestion = rules.suggestion {
                var wiped = false
                if let store = try? setup.store(for: manifest.identifier) { wiped = (try? store.wipe()) != nil }
                trace.note(manifest, "identity store", wiped ? "wiped" : "could not be wiped")
                return .failed("\(name) no longer has \(suggestion.identity.displayUser) for \(suggestion.service); its suggestions were cleared until it writes them again")
            }
        default:
            break
        }
        // A provider that needed to ask something where no UI could: a fill names the likeliest
        // reason (a locked store), and counts only the provider's own failure as that.
        if rules.interactive, let unavailable = ui.unavailableReason, rules.suggestion == nil || error.code == .failed {
            let likely = rules.suggestion == nil ? "" : " (to unlock it, say)"
            return .stop(.userInterfaceUnavailable("\(name) needs to ask you something\(likely), and \(unavailable)."))
        }
        return .failed("\(name) \(rules.cancelVerb): \(reason)")
    }

    /// A completed answer: checked (``PasskeyResultCheck``, ``PasskeyClaimCheck``) and authenticated.
    private func accept(_ credential: Credential, of request: ProviderRequest, from manifest: PluginManifest, rules: AnswerRules) -> Attempt {
        let name = manifest.displayName
        if let problem = PasskeyResultCheck.problem(with: credential, for: request) {
            return .failed("\(name) answered with \(problem)\(rules.checkSuffix)")
        }
        let established: UserAuthentication
        switch rules.authentication {
        case .notNeeded:
            established = (rules.interactive ? ui.established : nil) ?? UserAuthentication(method: .none, userPresent: false, userVerified: false)
        case .before(let host):
            established = (rules.interactive ? ui.established : nil).map { host.combined(with: $0) } ?? host
            if let problem = PasskeyClaimCheck.problem(with: credential, established: established) {
                return .failed("\(name) answered with \(problem)\(rules.checkSuffix)")
            }
        case .afterwards(let purpose, let chosen):
            let reason = "\(purpose) from \(name)"
            let authenticated = rules.interactive
                ? authenticateAfterInterface(reason: reason, manifest: manifest, chosen: chosen)
                : authenticateUser(reason: reason, manifest: manifest, chosen: chosen)
            switch authenticated {
            case .failure(let failure): return .stop(failure)
            case .success(let result): established = result
            }
        }
        return .filled(FillResult(credential: credential, providerID: manifest.identifier, providerName: name,
                                  suggestion: rules.suggestion, authentication: established))
    }

    /// The host's own user authentication (the configured policy), as a fill stops when it fails;
    /// `outcome` names what did not happen then ("filled", "saved"). Not asked when `chosen` (the
    /// user's pick from the list at the terminal) established what the policy asks.
    func authenticateUser(reason: String, manifest: PluginManifest, outcome: String = "filled",
                          chosen: UserAuthentication? = nil) -> Result<UserAuthentication, FillFailure> {
        if let chosen, chosen.level > .nothing, chosen.level >= authenticator.required {
            trace.note(manifest, "host user authentication", "not asked: you chose it from the list at the terminal (\(chosen.level))")
            return .success(chosen)
        }
        do {
            let authentication = try authenticator.authenticate(reason: reason)
            trace.note(manifest, "host user authentication", "\(authentication.method.rawValue)")
            return .success(authentication)
        } catch {
            trace.note(manifest, "host user authentication", "\(error)")
            switch error {
            case .canceled: return .failure(.canceled("Nothing was \(outcome)."))
            case .denied(let why): return .failure(.authenticationFailed("Not \(outcome): you were not authenticated (\(why))."))
            case .unavailable(let why): return .failure(.authenticationUnavailable("Not \(outcome): autofill could not ask you to confirm: \(why)."))
            }
        }
    }

    /// The policy after a provider's UI request completed: what the provider's UI established counts
    /// when it is what the policy asks (and is something); otherwise the host asks itself, and the
    /// result carries both.
    func authenticateAfterInterface(reason: String, manifest: PluginManifest,
                                    chosen: UserAuthentication? = nil) -> Result<UserAuthentication, FillFailure> {
        let provider = ui.established
        if let provider, provider.level > .nothing, provider.level >= authenticator.required {
            trace.note(manifest, "host user authentication", "not asked: \(manifest.displayName)'s own UI established \(provider.level)")
            return .success(provider)
        }
        trace.note(manifest, "provider UI", provider.map { "established only \($0.level)" } ?? "showed nothing")
        return authenticateUser(reason: reason, manifest: manifest, chosen: chosen).map { host in provider?.combined(with: host) ?? host }
    }
}
