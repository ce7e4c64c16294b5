public import AutofillCore
public import AutofillMatching
internal import Synchronization

/// A credential the user got, with who gave it and how the user was authenticated.
public struct FillResult: Sendable {
    public var credential: Credential
    public var providerID: String
    public var providerName: String
    /// The suggestion picked, or nil when the credential came from a provider's own list.
    public var suggestion: Suggestion?
    public var authentication: UserAuthentication
}

/// Why nothing was filled. Each maps to one exit status of the CLI.
public enum FillFailure: Error, Sendable, CustomStringConvertible {
    /// Nothing to offer (no suggestion, no provider with the capability).
    case nothingToFill(String)
    /// The user cancelled (at a provider's UI or the host's).
    case canceled(String)
    /// A UI was needed and none is available (no terminal, no UI script).
    case userInterfaceUnavailable(String)
    /// The host could not authenticate the user.
    case authenticationFailed(String)
    /// The host's own authentication needed the controlling terminal and there is none (a UI
    /// script never answers it).
    case authenticationUnavailable(String)
    /// Every candidate tried failed; the messages name each provider.
    case providersFailed([String])
    /// Passkey registration: the provider already holds one of the relying party's excluded
    /// credentials (`matchedExcludedCredential`); nothing was created.
    case excludedCredential(String)
    /// Conditional passkey registration: no provider accepted. Quiet by design; the reasons (one per
    /// provider) are for `--trace`, not an error screen.
    case declined([String])
    /// Every candidate tried was refused before its provider ran (changed files, unsafe permissions,
    /// quarantine); the messages say why and what to do.
    case providersRefused([String])

    public var description: String {
        switch self {
        case .nothingToFill(let message), .canceled(let message), .userInterfaceUnavailable(let message),
            .authenticationFailed(let message), .authenticationUnavailable(let message), .excludedCredential(let message):
            message
        case .providersFailed(let messages), .declined(let messages), .providersRefused(let messages): messages.joined(separator: "\n")
        }
    }
}

/// How the candidate to fill is chosen.
public enum FillPick: Sendable, Equatable {
    /// Ask the user (the host's UI: terminal or UI script).
    case interactive
    /// The Nth suggestion (1-based).
    case position(Int)
    /// The best suggestion for this user name.
    case user(String)
}

/// Routes requests to the owning providers, as the AutoFill system does:
///
/// 1. the no-UI entry point under the deadline;
/// 2. a credential → the host authenticates the user itself (the configured policy), then fills;
/// 3. `userInteractionRequired` → the provider's UI entry point; the host does not authenticate
///    again when that UI established what the policy asks (a master password typed is verification,
///    any answer a person gave at the terminal is presence), and does otherwise;
/// 4. `credentialIdentityNotFound` → the provider's identity store is wiped, the user told, the next
///    candidate offered;
/// 5. `failed`, a timeout, or no answer → a message naming the provider, and fallback to the next
///    candidate (interactive: the list again with the failure marked; otherwise only with `fallback`);
/// 6. `userCanceled` → nothing is filled.
///
/// Every path that hands out a secret (suggestions, a provider's list, text, passkeys) applies the
/// `UserAuthentication` policy: the host's own prompts (``HostPrompts``: the terminal only) unless
/// the provider's own UI in that request already established what the policy asks.
///
/// Only providers whose plist declares the capability receive a request kind.
public final class FillRouter: Sendable {
    let setup: ProviderSetup
    let ui: RecordingUserInterface
    let authenticator: any UserAuthenticator
    let deadline: Duration
    let notify: @Sendable (String) -> Void
    /// Which provider answered what.
    public let trace: RequestTrace
    private let connections = Mutex<[String: any ProviderConnection]>([:])

    /// A router over `setup`'s enabled providers, rendering providers' UI and the host's lists with `ui`
    /// (the terminal or a UI script) and authenticating with `authenticator`, whose questions must go
    /// to the controlling terminal only (``HostPrompts``).
    public init(setup: ProviderSetup, ui: any ProviderUserInterface, authenticator: any UserAuthenticator,
                deadline: Duration, trace: RequestTrace = RequestTrace(), notify: @escaping @Sendable (String) -> Void) {
        self.setup = setup
        self.trace = trace
        self.ui = RecordingUserInterface(ui)
        self.authenticator = authenticator
        self.deadline = deadline
        self.notify = notify
    }

    /// The UI that providers and the host's own prompts use.
    public var userInterface: any ProviderUserInterface { ui }

    // MARK: Filling from suggestions

    /// Fills one of `candidates` (best first), chosen by `pick`, falling back as the rules say.
    /// Passkey candidates need `passkey`: the WebAuthn parameters of the sign-in (``PasskeyCeremony``).
    public func fill(_ candidates: [Suggestion], for query: ServiceQuery, pick: FillPick, fallback: Bool,
                     passkey: PasskeyParameters? = nil) async throws(FillFailure) -> FillResult {
        try await fill(candidates, for: .site(query), pick: pick, fallback: fallback, passkey: passkey)
    }

    /// Fills one of `candidates` found for `term` (a site, or a name: each fills for its own site).
    public func fill(_ candidates: [Suggestion], for term: SearchTerm, pick: FillPick, fallback: Bool,
                     passkey: PasskeyParameters? = nil) async throws(FillFailure) -> FillResult {
        guard !candidates.isEmpty else { throw .nothingToFill("No suggestions for \(term).") }
        var failures: [Int: String] = [:]
        var messages: [String] = []
        var tried: Set<Int> = []
        var refusedOnly = true
        var next = try firstChoice(candidates, pick: pick)
        // A choice a person just made from the list at the terminal is their presence: under `confirm`
        // it is the confirmation (one question, not two); `pam` still asks for more.
        let chosen = pick == .interactive && candidates.count > 1 && ui.answersComeFromAPerson
            ? UserAuthentication(method: .confirm, userPresent: true, userVerified: false) : nil
        while true {
            tried.insert(next)
            switch await provide(candidates[next], services: term.services(of: candidates[next]), passkey: passkey, chosen: chosen) {
            case .filled(let result):
                recordDelivery(result, at: term.host(of: candidates[next]))
                return result
            case .stop(let failure):
                throw failure
            case .failed(let message):
                failures[next] = message
                messages.append(message)
                refusedOnly = false
            case .refused(let message):
                failures[next] = message
                messages.append(message)
            }
            if pick == .interactive {
                notify(messages[messages.count - 1])
                next = try choose(candidates, failures: failures)
                continue
            }
            let remaining = candidates.indices.filter { index in
                guard !tried.contains(index) else { return false }
                if case .user(let name) = pick { return candidates[index].identity.displayUser == name }
                return true
            }
            guard fallback, let following = remaining.first else {
                if !fallback && !remaining.isEmpty { messages.append("Pass --fallback to try the next suggestion automatically.") }
                throw refusedOnly ? .providersRefused(messages) : .providersFailed(messages)
            }
            notify("\(messages[messages.count - 1]). Trying the next suggestion: \(Self.label(candidates[following])).")
            next = following
        }
    }

    private func firstChoice(_ candidates: [Suggestion], pick: FillPick) throws(FillFailure) -> Int {
        switch pick {
        case .interactive:
            if candidates.count == 1 { return 0 }
            return try choose(candidates, failures: [:])
        case .position(let position):
            guard candidates.indices.contains(position - 1) else {
                throw .nothingToFill("There are \(candidates.count) suggestions; --pick takes 1 to \(candidates.count).")
            }
            return position - 1
        case .user(let name):
            guard let index = candidates.firstIndex(where: { $0.identity.displayUser == name }) else {
                let users = Array(Set(candidates.map(\.identity.displayUser))).sorted()
                throw .nothingToFill("No suggestion for the user \(name); the suggestions are for \(users.joined(separator: ", ")).")
            }
            return index
        }
    }

    private func choose(_ candidates: [Suggestion], failures: [Int: String]) throws(FillFailure) -> Int {
        let items = candidates.enumerated().map { index, candidate in
            Self.label(candidate) + (failures[index].map { "  — failed: \($0)" } ?? "")
        }
        do {
            guard case .choice(let index) = try ui.present(.choose(title: "Choose a suggestion", items: items), providerName: "autofill") else {
                throw FillFailure.canceled("Nothing was filled.")
            }
            return index
        } catch let failure as FillFailure {
            throw failure
        } catch UserInterfaceError.canceled {
            throw .canceled("Nothing was filled.")
        } catch {
            throw .userInterfaceUnavailable(ui.unavailableReason ?? "no UI to choose with: run in a terminal, pass --ui-script, or pick with --pick N or --user NAME")
        }
    }

    static func label(_ suggestion: Suggestion) -> String {
        let user = suggestion.identity.displayUser.isEmpty ? "(no user name)" : suggestion.identity.displayUser
        return "\(user) — \(suggestion.identity.kind.label) — \(suggestion.providerName) (\(suggestion.match): \(suggestion.service))"
    }

    /// One attempt's result.
    enum Attempt {
        case filled(FillResult)
        case failed(String)
        /// The provider was not run: the host refused it (trust, permissions, quarantine).
        case refused(String)
        case stop(FillFailure)
    }

    /// Asks the suggestion's provider for the credential: no-UI first, then its UI.
    ///
    /// Passwords and codes: the host authenticates the user *after* a no-UI answer, before filling.
    /// Passkeys: *before* the no-UI request, because the provider signs the UP/UV flags; what the
    /// host established travels in the parameters (`hostUserPresent`, `hostUserVerified`).
    /// `chosen`: what the user's pick from the list at the terminal established, if they made one.
    func provide(_ suggestion: Suggestion, services: [ServiceIdentifier], passkey: PasskeyParameters? = nil,
                 chosen: UserAuthentication? = nil) async -> Attempt {
        let manifest: PluginManifest
        let connection: any ProviderConnection
        do {
            manifest = try setup.catalog.manifest(for: suggestion.providerID)
            connection = try self.connection(for: manifest)
        } catch where error.code == .refused {
            return .refused(error.description)
        } catch {
            return .failed("\(suggestion.providerName) could not be loaded: \(error)")
        }
        let request: CredentialRequest
        var authenticatedFirst: UserAuthentication?
        let user = suggestion.identity.displayUser
        let whose = user.isEmpty ? "the" : "\(user)'s"  // an entry without a user: "fill the password for …"
        let reason = "\(whose) \(suggestion.identity.kind.label) for \(suggestion.service) from \(manifest.displayName)"
        switch suggestion.identity {
        case .password(let identity) where manifest.capabilities.contains(.providesPasswords): request = .password(identity)
        case .oneTimeCode(let identity) where manifest.capabilities.contains(.providesOneTimeCodes): request = .oneTimeCode(identity)
        case .passkey(let identity) where manifest.capabilities.contains(.providesPasskeys):
            guard var parameters = passkey else {
                return .failed("a passkey needs a WebAuthn request (autofill passkey get); \(manifest.displayName) was not asked")
            }
            switch authenticateUser(reason: "sign in with " + reason, manifest: manifest, chosen: chosen) {
            case .failure(let failure): return .stop(failure)
            case .success(let authentication):
                authenticatedFirst = authentication
                parameters.hostUserPresent = authentication.userPresent
                parameters.hostUserVerified = authentication.userVerified
            }
            parameters.hostUserInterfaceScripted = !ui.answersComeFromAPerson
            request = .passkeyAssertion(identity, parameters)
        default:
            return .failed("\(manifest.displayName) does not declare \(suggestion.identity.kind.label)s; not asked")
        }
        let start = ContinuousClock.now
        let silent = await connection.send(.credentialWithoutUserInteraction(request), deadline: deadline)
        trace.record(manifest, .provideCredentialWithoutUserInteraction, silent, since: start)
        switch silent {
        case .completed(let credential):
            if let problem = PasskeyResultCheck.problem(with: credential, for: request) {
                return .failed("\(manifest.displayName) answered with \(problem)")
            }
            if let authenticatedFirst {
                if let problem = PasskeyClaimCheck.problem(with: credential, established: authenticatedFirst) {
                    return .failed("\(manifest.displayName) answered with \(problem)")
                }
                return .filled(FillResult(credential: credential, providerID: manifest.identifier, providerName: manifest.displayName,
                                          suggestion: suggestion, authentication: authenticatedFirst))
            }
            switch authenticateUser(reason: "fill " + reason, manifest: manifest, chosen: chosen) {
            case .failure(let failure): return .stop(failure)
            case .success(let authentication):
                return .filled(FillResult(credential: credential, providerID: manifest.identifier, providerName: manifest.displayName,
                                          suggestion: suggestion, authentication: authentication))
            }
        case .canceled(let error) where error.code == .userInteractionRequired:
            return await provideWithInterface(request, suggestion: suggestion, manifest: manifest, connection: connection,
                                              authenticatedFirst: authenticatedFirst, chosen: chosen, reason: reason)
        default:
            return settle(silent, suggestion: suggestion, manifest: manifest)
        }
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

    private func provideWithInterface(_ request: CredentialRequest, suggestion: Suggestion, manifest: PluginManifest,
                                      connection: any ProviderConnection, authenticatedFirst: UserAuthentication?,
                                      chosen: UserAuthentication?, reason: String) async -> Attempt {
        let start = ContinuousClock.now
        ui.reset()
        let outcome = await connection.send(.interfaceToProvideCredential(request), deadline: nil)
        trace.record(manifest, .prepareInterfaceToProvideCredential, outcome, since: start)
        if case .completed(let credential) = outcome {
            if let problem = PasskeyResultCheck.problem(with: credential, for: request) {
                return .failed("\(manifest.displayName) answered with \(problem)")
            }
            let authentication: UserAuthentication
            if let authenticatedFirst {
                authentication = ui.established.map { authenticatedFirst.combined(with: $0) } ?? authenticatedFirst
                if let problem = PasskeyClaimCheck.problem(with: credential, established: authentication) {
                    return .failed("\(manifest.displayName) answered with \(problem)")
                }
            } else {
                switch authenticateAfterInterface(reason: "fill " + reason, manifest: manifest, chosen: chosen) {
                case .failure(let failure): return .stop(failure)
                case .success(let established): authentication = established
                }
            }
            return .filled(FillResult(credential: credential, providerID: manifest.identifier, providerName: manifest.displayName,
                                      suggestion: suggestion, authentication: authentication))
        }
        if let reason = ui.unavailableReason, case .canceled(let error) = outcome, error.code == .failed {
            return .stop(.userInterfaceUnavailable("\(manifest.displayName) needs to ask you something (to unlock it, say), and \(reason)."))
        }
        return settle(outcome, suggestion: suggestion, manifest: manifest)
    }

    /// The common endings: cancel, identity not found (wipe), failure.
    private func settle(_ outcome: ProviderOutcome, suggestion: Suggestion, manifest: PluginManifest) -> Attempt {
        switch outcome {
        case .completed:
            return .failed("\(manifest.displayName) answered unexpectedly")
        case .canceled(let error) where error.code == .userCanceled:
            return .stop(.canceled("Nothing was filled: cancelled in \(manifest.displayName)."))
        case .canceled(let error) where error.code == .credentialIdentityNotFound:
            var wiped = false
            if let store = try? setup.store(for: manifest.identifier) { wiped = (try? store.wipe()) != nil }
            trace.note(manifest, "identity store", wiped ? "wiped" : "could not be wiped")
            return .failed("\(manifest.displayName) no longer has \(suggestion.identity.displayUser) for \(suggestion.service); its suggestions were cleared until it writes them again")
        case .canceled(let error):
            return .failed("\(manifest.displayName) failed: \(error.failureReason ?? error.code.description)")
        case .failed(let failure):
            return .failed(failure.message)
        }
    }

    // MARK: Lists, text, configuration

    /// Opens a provider's full list (`prepareCredentialList` or the one-time-code list) and returns what
    /// the user chose, once the policy is satisfied (choosing from a list is presence at most).
    public func fillFromList(providerID: String, kind: CredentialIdentity.Kind, services: [ServiceIdentifier]) async throws(FillFailure) -> FillResult {
        let request: ProviderRequest = kind == .oneTimeCode ? .oneTimeCodeList(services) : .credentialList(services)
        let result = try await interfaceRequest(
            request, providerID: providerID, capability: kind == .oneTimeCode ? .providesOneTimeCodes : .providesPasswords,
            authentication: .afterwards("fill a \(kind.label) from the list"))
        recordDelivery(result, at: services.first.flatMap { try? ServiceQuery($0.identifier).name.hostText })
        return result
    }

    /// Remembers a password the host delivered (the user passed its authentication), for an automatic
    /// passkey upgrade at that site later (``RecentFills``). A record that cannot be written is traced,
    /// never a reason to withhold the fill.
    func recordDelivery(_ result: FillResult, at host: String?) {
        guard case .password(let credential) = result.credential, let host, !host.isEmpty else { return }
        do {
            try RecentFills(folder: setup.records).record(providerID: result.providerID, user: credential.user, host: host)
        } catch {
            setup.logger.warning("the fill was not recorded, so no automatic passkey upgrade will follow it: \(error)")
        }
    }

    /// The enabled providers that declare `capability`, in the user's order.
    public func enabledProviders(declaring capability: Capability) -> [PluginManifest] {
        setup.catalog.enabledIDs.compactMap { try? setup.catalog.manifest(for: $0) }.filter { $0.capabilities.contains(capability) }
    }

    /// The provider a command works with: `id` (it must be enabled and declare `capability`: a usage
    /// error otherwise), else the only enabled one that declares it, else the user's choice in a list
    /// titled `title`. `canceled` is the message when the user cancels that choice.
    public func chooseProvider(declaring capability: Capability, id: String?, title: String, canceled: String) throws -> PluginManifest {
        let providers = enabledProviders(declaring: capability)
        if let id {
            guard let manifest = providers.first(where: { $0.identifier == id }) else {
                throw AutofillError(.usage, "\(id) is not an enabled provider with \(capability.plistKey)\(KeySpelling.didYouMean(id, among: providers.map(\.identifier)))")
            }
            return manifest
        }
        guard !providers.isEmpty else { throw FillFailure.nothingToFill("No enabled provider declares \(capability.plistKey).") }
        if providers.count == 1 { return providers[0] }
        do {
            guard case .choice(let index) = try ui.present(.choose(title: title, items: providers.map(\.displayName)), providerName: "autofill")
            else { throw FillFailure.canceled(canceled) }
            return providers[index]
        } catch UserInterfaceError.canceled {
            throw FillFailure.canceled(canceled)
        } catch UserInterfaceError.unavailable(let why) {
            throw FillFailure.userInterfaceUnavailable("Choose the provider with --provider ID (\(why)).")
        }
    }

    /// Asks a provider for text to insert, once the policy is satisfied.
    public func insertText(providerID: String) async throws(FillFailure) -> FillResult {
        try await interfaceRequest(.textToInsert, providerID: providerID, capability: .providesTextToInsert,
                                   authentication: .afterwards("insert text"))
    }

    /// Runs a provider's configuration UI; returns when the provider completes it. Takes the manifest
    /// itself: the provider may have been enabled after this router was made.
    public func configure(_ manifest: PluginManifest) async throws(FillFailure) {
        do {
            _ = try await interfaceRequest(.extensionConfiguration, manifest: manifest, capability: .showsConfigurationUI,
                                           authentication: .notNeeded)
        } catch .canceled {
            throw .canceled("\(manifest.displayName)'s configuration was cancelled.")
        }
    }

    /// How a UI request's result is authenticated.
    enum InterfaceAuthentication {
        /// Nothing secret comes back (configuration).
        case notNeeded
        /// The policy is applied after the provider completed, unless its UI established enough;
        /// the text says what for ("insert text"), shown with the provider's name.
        case afterwards(String)
        /// The host authenticated before the request (passkeys: the provider signs the flags).
        case before(UserAuthentication)
    }

    func interfaceRequest(_ request: ProviderRequest, providerID: String, capability: Capability,
                          authentication: InterfaceAuthentication) async throws(FillFailure) -> FillResult {
        let manifest: PluginManifest
        do {
            manifest = try setup.catalog.manifest(for: providerID)
        } catch {
            throw .providersFailed(["\(providerID) could not be loaded: \(error)"])
        }
        return try await interfaceRequest(request, manifest: manifest, capability: capability, authentication: authentication)
    }

    func interfaceRequest(_ request: ProviderRequest, manifest: PluginManifest, capability: Capability,
                          authentication: InterfaceAuthentication, outcome: String = "filled") async throws(FillFailure) -> FillResult {
        let connection: any ProviderConnection
        do {
            guard manifest.capabilities.contains(capability) else {
                throw FillFailure.nothingToFill("\(manifest.displayName) does not declare \(capability.plistKey)")
            }
            connection = try self.connection(for: manifest)
        } catch let failure as FillFailure {
            throw failure
        } catch let error as AutofillError where error.code == .refused {
            throw .providersRefused([error.description])
        } catch {
            throw .providersFailed(["\(manifest.displayName) could not be loaded: \(error)"])
        }
        ui.reset()
        let start = ContinuousClock.now
        let outcome = await connection.send(request, deadline: nil)
        trace.record(manifest, request.entryPoint, outcome, since: start)
        switch outcome {
        case .completed(let credential):
            let established: UserAuthentication
            switch authentication {
            case .notNeeded:
                established = ui.established ?? UserAuthentication(method: .none, userPresent: false, userVerified: false)
            case .before(let host):
                established = ui.established.map { host.combined(with: $0) } ?? host
                if let problem = PasskeyClaimCheck.problem(with: credential, established: established) {
                    throw .providersFailed(["\(manifest.displayName) answered with \(problem)"])
                }
            case .afterwards(let purpose):
                switch authenticateAfterInterface(reason: "\(purpose) from \(manifest.displayName)", manifest: manifest) {
                case .failure(let failure): throw failure
                case .success(let result): established = result
                }
            }
            return FillResult(credential: credential, providerID: manifest.identifier, providerName: manifest.displayName,
                              suggestion: nil, authentication: established)
        case .canceled(let error) where error.code == .userCanceled:
            throw .canceled("Nothing was \(outcome): cancelled in \(manifest.displayName).")
        case .canceled(let error):
            if let reason = ui.unavailableReason {
                throw .userInterfaceUnavailable("\(manifest.displayName) needs to ask you something, and \(reason).")
            }
            throw .providersFailed(["\(manifest.displayName) failed: \(error.failureReason ?? error.code.description)"])
        case .failed(let failure):
            throw .providersFailed([failure.message])
        }
    }

    /// The loaded provider, loading it the first time with its store, settings and the host's UI.
    /// Under the agent, the provider kept running in its ``ProviderPool``, its requests carrying this
    /// router's UI.
    func connection(for manifest: PluginManifest) throws(AutofillError) -> any ProviderConnection {
        if let existing = connections.withLock({ $0[manifest.identifier] }) { return existing }
        if let pool = ClientContext.current.pool {
            let connection = try pool.connection(for: manifest, setup: setup, userInterface: ui)
            connections.withLock { $0[manifest.identifier] = connection }
            return connection
        }
        guard let store = try setup.store(for: manifest.identifier) else {
            throw AutofillError(.configuration, "\(manifest.identifier) is not enabled")
        }
        let connection = try setup.launch(manifest, store: store, userInterface: ui)
        connections.withLock { $0[manifest.identifier] = connection }
        return connection
    }
}

extension CredentialIdentity.Kind {
    /// "password", "passkey", "one-time code".
    public var label: String {
        switch self {
        case .password: "password"
        case .passkey: "passkey"
        case .oneTimeCode: "one-time code"
        }
    }
}
