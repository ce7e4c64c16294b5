public import AutofillCore
public import AutofillMatching

/// How the candidate to fill is chosen.
public enum FillPick: Sendable, Equatable {
    /// Ask the user (the host's UI: terminal or UI script).
    case interactive
    /// The Nth suggestion (1-based).
    case position(Int)
    /// The best suggestion for this user name.
    case user(String)
}

extension FillRouter {
    /// Fills a `kind` credential for `term` from the identity stores' suggestions (best first), the
    /// one `pick` chooses from them, falling back as ``fill(_:for:pick:fallback:passkey:)`` says: the
    /// CLI's `fill` without `--list`, and git's `get`. The term is a site or a name (`autofill fill
    /// fastmail`: each suggestion fills for its own site). `accept` drops suggestions the caller must
    /// not fill (git's `get`: erased logins, other paths). The stores' warnings go to `notify`.
    public func fillFromSuggestions(for term: SearchTerm, kind: CredentialIdentity.Kind,
                                    pick: ([Suggestion]) -> FillPick, fallback: Bool,
                                    accept: (Suggestion) -> Bool = { _ in true }) async throws -> FillResult {
        let engine = SuggestionEngine(catalog: setup.catalog, directory: setup.stores)
        for warning in engine.warnings { notify("warning: \(warning)") }
        let candidates = try AutofillError.fromStore { () throws(IdentityStoreError) in
            try engine.suggestions(for: term, kinds: [kind])
        }.filter(accept)
        guard !candidates.isEmpty else {
            guard case .site(let query) = term else {
                throw FillFailure.nothingToFill(advised("Nothing is named \(term), and no user or site holds it", .nothingNamed(term.description)))
            }
            // The parsed name, never the input as typed: `https://alice:pw@…` carries a password.
            let site = query.name.description
            throw FillFailure.nothingToFill(advised("No suggestions for \(site)", .noSuggestions(kind, site: site, nameLabel: term.nameSearchLabel)))
        }
        return try await fill(candidates, for: term, pick: pick(candidates), fallback: fallback)
    }

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
            let attempt = await provide(candidates[next], passkey: passkey, chosen: chosen)
            let message: String
            switch attempt {
            case .filled(let result):
                recordDelivery(result, at: term.host(of: candidates[next]))
                return result
            case .failed(let failed):
                message = failed
                refusedOnly = false
            case .refused(let refused):
                message = refused
            case .stop, .needsUserInterface:
                return try attempt.result()
            }
            failures[next] = message
            messages.append(message)
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
                if !fallback && !remaining.isEmpty { messages.append(advised("No other suggestion was tried", .otherSuggestionsNotTried)) }
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
                throw .nothingToFill(advised("There are \(candidates.count) suggestions", .pickOutOfRange(count: candidates.count)))
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
            throw .userInterfaceUnavailable(ui.unavailableReason ?? advised("there is no UI to choose a suggestion with", .suggestionNotChosen, end: ""))
        }
    }

    static func label(_ suggestion: Suggestion) -> String {
        let user = suggestion.identity.displayUser.isEmpty ? "(no user name)" : suggestion.identity.displayUser
        return "\(user) — \(suggestion.identity.kind.label) — \(suggestion.providerName) (\(suggestion.match): \(suggestion.service))"
    }

    /// Asks the suggestion's provider for the credential: no-UI first, then its UI.
    ///
    /// Passwords and codes: the host authenticates the user *after* a no-UI answer, before filling.
    /// Passkeys: *before* the no-UI request, because the provider signs the UP/UV flags; what the
    /// host established travels in the parameters (`hostUserPresent`, `hostUserVerified`).
    /// `chosen`: what the user's pick from the list at the terminal established, if they made one.
    func provide(_ suggestion: Suggestion, passkey: PasskeyParameters? = nil, chosen: UserAuthentication? = nil) async -> Attempt {
        let manifest: PluginManifest
        do {
            manifest = try setup.catalog.manifest(for: suggestion.providerID)
        } catch where error.code == .refused {
            return .refused(error.description)
        } catch {
            return .failed("\(suggestion.providerName) could not be loaded: \(error)")
        }
        let connection: any ProviderConnection
        switch connect(manifest) {
        case .success(let connected): connection = connected
        case .failure(let unconnected): return unconnected.attempt
        }
        let request: CredentialRequest
        let authentication: AnswerAuthentication
        let user = suggestion.identity.displayUser
        let whose = user.isEmpty ? "the" : "\(user)'s"  // an entry without a user: "fill the password for …"
        let what = "\(whose) \(suggestion.identity.kind.label) for \(suggestion.service)"
        switch suggestion.identity {
        case .password(let identity) where manifest.capabilities.contains(.providesPasswords):
            request = .password(identity)
            authentication = .afterwards("fill \(what)", chosen: chosen)
        case .oneTimeCode(let identity) where manifest.capabilities.contains(.providesOneTimeCodes):
            request = .oneTimeCode(identity)
            authentication = .afterwards("fill \(what)", chosen: chosen)
        case .passkey(let identity) where manifest.capabilities.contains(.providesPasskeys):
            guard var parameters = passkey else {
                return .failed(advised("\(manifest.displayName) was not asked: a passkey is for a WebAuthn sign-in", .passkeyOutsideSignIn, end: ""))
            }
            switch authenticateUser(reason: "sign in with \(what) from \(manifest.displayName)", manifest: manifest, chosen: chosen) {
            case .failure(let failure): return .stop(failure)
            case .success(let host):
                authentication = .before(host)
                parameters.hostUserPresent = host.userPresent
                parameters.hostUserVerified = host.userVerified
            }
            parameters.hostUserInterfaceScripted = !ui.answersComeFromAPerson
            request = .passkeyAssertion(identity, parameters)
        default:
            return .failed("\(manifest.displayName) does not declare \(suggestion.identity.kind.label)s; not asked")
        }
        var rules = AnswerRules(authentication: authentication, interactive: false, suggestion: suggestion)
        let silent = await exchange(.credentialWithoutUserInteraction(request), with: connection, manifest: manifest, rules: rules)
        guard case .needsUserInterface = silent else { return silent }
        rules.interactive = true
        return await exchange(.interfaceToProvideCredential(request), with: connection, manifest: manifest, rules: rules)
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
