public import AutofillCore
internal import AutofillMatching
internal import Synchronization

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
///
/// One path: every request, whatever its kind, is sent and its answer settled in one place
/// (`exchange`, FillRouter+Answers.swift), over the one connection ``ProviderSetup/connect(_:userInterface:)``
/// gives. The router's messages say what happened; the caller's ``FillAdvice`` says how to go on.
public final class FillRouter: Sendable {
    let setup: ProviderSetup
    let ui: RecordingUserInterface
    let authenticator: any UserAuthenticator
    let deadline: Duration
    let notify: @Sendable (String) -> Void
    /// How the caller advises the user where they could go on (``FillSituation``).
    let advice: FillAdvice
    /// Which provider answered what.
    public let trace: RequestTrace
    private let connections = Mutex<[String: any ProviderConnection]>([:])

    /// A router over `setup`'s enabled providers, rendering providers' UI and the host's lists with `ui`
    /// (the terminal or a UI script) and authenticating with `authenticator`, whose questions must go
    /// to the controlling terminal only (``HostPrompts``). Notices go to `notify`; `advice` adds the
    /// caller's own words for where the user could go on (the CLI names its flags).
    public init(setup: ProviderSetup, ui: any ProviderUserInterface, authenticator: any UserAuthenticator,
                deadline: Duration, trace: RequestTrace = RequestTrace(), notify: @escaping @Sendable (String) -> Void,
                advice: @escaping FillAdvice = { _ in nil }) {
        self.setup = setup
        self.trace = trace
        self.ui = RecordingUserInterface(ui)
        self.authenticator = authenticator
        self.deadline = deadline
        self.notify = notify
        self.advice = advice
    }

    /// The UI that providers and the host's own prompts use.
    public var userInterface: any ProviderUserInterface { ui }

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
            throw FillFailure.userInterfaceUnavailable(advised("No provider was chosen (\(why))", .providerNotChosen))
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

    func interfaceRequest(_ request: ProviderRequest, providerID: String, capability: Capability,
                          authentication: AnswerAuthentication) async throws(FillFailure) -> FillResult {
        let manifest: PluginManifest
        do {
            manifest = try setup.catalog.manifest(for: providerID)
        } catch {
            throw .providersFailed(["\(providerID) could not be loaded: \(error)"])
        }
        return try await interfaceRequest(request, manifest: manifest, capability: capability, authentication: authentication)
    }

    /// Sends `request` to `manifest`'s provider through its UI entry point (no deadline), once it
    /// declares `capability`; `outcome` names what did not happen when it ends without a result.
    func interfaceRequest(_ request: ProviderRequest, manifest: PluginManifest, capability: Capability,
                          authentication: AnswerAuthentication, outcome: String = "filled") async throws(FillFailure) -> FillResult {
        guard manifest.capabilities.contains(capability) else {
            throw .nothingToFill("\(manifest.displayName) does not declare \(capability.plistKey)")
        }
        let connection: any ProviderConnection
        switch connect(manifest) {
        case .success(let connected): connection = connected
        case .failure(let unconnected): return try unconnected.attempt.result()
        }
        let rules = AnswerRules(authentication: authentication, interactive: true, undone: "Nothing was \(outcome)")
        return try await exchange(request, with: connection, manifest: manifest, rules: rules).result()
    }

    /// The provider's connection for this router's requests (``ProviderSetup/connect(_:userInterface:)``,
    /// with this router's UI), kept for the router's later requests.
    func connection(for manifest: PluginManifest) throws(AutofillError) -> any ProviderConnection {
        if let existing = connections.withLock({ $0[manifest.identifier] }) { return existing }
        let connection = try setup.connect(manifest, userInterface: ui)
        connections.withLock { $0[manifest.identifier] = connection }
        return connection
    }
}
