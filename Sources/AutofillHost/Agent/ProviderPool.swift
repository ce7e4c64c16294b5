internal import AutofillCore
internal import Synchronization

/// The providers the agent keeps running between requests, so each can keep its unlocked state in
/// its own memory (docs/AGENT.md).
///
/// One connection per provider id, whichever configuration file a request names: two configurations
/// that launch a provider the same way share it (and what it unlocked). A request that would launch
/// it differently (another bundle, settings, sandbox, limits, isolation, store folder or UI idle
/// time) replaces it. Every request
/// admits the provider again (trust and quarantine, ``ProviderSetup/admit(_:)``), so a provider
/// whose files changed or that was quarantined since is refused as it would be without the agent.
/// The connection's helper restarts on the next request after a crash, as always; ``lock(_:)`` ends
/// helpers on purpose, and with them what they held.
///
/// The pool holds the user's authentication policy (``userPolicy``): a request whose configuration
/// asks for less is refused, and so is a request that asks for less than any request a running
/// provider served before, since that provider may hold what a stronger policy's request unlocked.
public final class ProviderPool: Sendable {
    /// What a launch depends on: the same signature reuses the running provider.
    struct Signature: Equatable {
        var bundlePath: String
        var isolation: String
        var options: HelperOptions?
        var settings: [String: String]
        var stores: String
        var userInterfaceIdleTimeout: Duration
    }

    private struct Entry {
        var signature: Signature
        var connection: any ProviderConnection
        var providerID: String
        /// The strongest policy of the requests it served (``AgentPolicy/level(of:)``).
        var served: AuthenticationLevel
    }

    /// The user's policy, held since the agent started.
    public let userPolicy: AgentPolicy

    private let entries = Mutex<[String: Entry]>([:])
    /// One lock per provider id, held while that provider is launched: concurrent first requests
    /// launch it once (a second launch would replace the first and end its helper mid-request),
    /// and a provider slow to load holds up no other provider's launch.
    private let launches = Mutex<[String: LaunchLock]>([:])

    private final class LaunchLock: Sendable {
        let mutex = Mutex(())
    }

    /// An empty pool holding the user's policy.
    public init(userPolicy: AgentPolicy) {
        self.userPolicy = userPolicy
    }

    /// The running connection of `manifest` for `setup`, launched (``ProviderSetup/launch(_:userInterface:)``)
    /// when there is none or it was launched differently. Admits the provider first either way, and
    /// refuses a request whose policy is weaker than the user's or than one the provider served.
    func connection(for manifest: PluginManifest, setup: ProviderSetup) throws(AutofillError) -> any ProviderConnection {
        let level = try userPolicy.admit(setup.catalog.file)
        let isolation = setup.catalog.file.configuration.isolation(for: manifest.identifier)
        let signature = Signature(
            bundlePath: manifest.bundlePath, isolation: isolation.rawValue,
            options: isolation == .inProcess ? nil : try setup.helperOptions(for: manifest),
            settings: setup.sandboxedSettings(for: manifest), stores: setup.stores.path,
            userInterfaceIdleTimeout: setup.catalog.file.configuration.uiIdleTimeout)
        let key = manifest.identifier
        if let entry = entries.withLock({ $0[key] }), entry.signature == signature {
            try setup.admit(manifest)
            try serve(key, at: level, file: setup.catalog.file)
            return entry.connection
        }
        let lock = launches.withLock { locks in
            if let lock = locks[key] { return lock }
            let lock = LaunchLock()
            locks[key] = lock
            return lock
        }
        return try lock.mutex.withLock { _ throws(AutofillError) -> any ProviderConnection in
            // Launched by a request that held the lock first?
            if let entry = entries.withLock({ $0[key] }), entry.signature == signature {
                try setup.admit(manifest)
                try serve(key, at: level, file: setup.catalog.file)
                return entry.connection
            }
            return try launch(manifest, setup: setup, key: key, signature: signature, level: level)
        }
    }

    /// The running connection of `manifest` for `setup` as one request sees it: its sends carry
    /// `userInterface`, and an answer is withheld when the provider served a stronger request than
    /// this one by the time it answers (a request under `pam` may have unlocked it meanwhile).
    func connection(for manifest: PluginManifest, setup: ProviderSetup, userInterface: any ProviderUserInterface)
        throws(AutofillError) -> any ProviderConnection
    {
        let connection = try connection(for: manifest, setup: setup)
        let key = manifest.identifier, file = setup.catalog.file, policy = userPolicy
        let level = policy.level(of: file.authenticationSettings)
        return ScopedConnection(connection, userInterface: userInterface) { [self] in
            guard let served = entries.withLock({ $0[key]?.served }), served > level else { return nil }
            return policy.refusal(of: key, served: served, file: file)
        }
    }

    /// Raises the policy entry `key` served to `level`; refuses when it served a stronger one.
    private func serve(_ key: String, at level: AuthenticationLevel, file: ConfigurationFile) throws(AutofillError) {
        let refused = entries.withLock { entries -> (id: String, served: AuthenticationLevel)? in
            guard let entry = entries[key] else { return nil }
            guard level >= entry.served else { return (entry.providerID, entry.served) }
            entries[key]?.served = level
            return nil
        }
        if let refused { throw userPolicy.refusal(of: refused.id, served: refused.served, file: file) }
    }

    private func launch(_ manifest: PluginManifest, setup: ProviderSetup, key: String, signature: Signature, level: AuthenticationLevel)
        throws(AutofillError) -> any ProviderConnection
    {
        let connection = try setup.launch(manifest)
        let replaced = entries.withLock { entries in
            defer { entries[key] = Entry(signature: signature, connection: connection, providerID: manifest.identifier, served: level) }
            return entries[key]
        }
        (replaced?.connection as? HelperConnection)?.endHelper()
        return connection
    }

    /// Ends the helpers of provider `id` (every provider when nil) and forgets them: their unlocked
    /// state dies with them. Returns the ids ended, and whether any of them ran in this process
    /// (`inProcess`), whose state only ends with the process.
    @discardableResult
    public func lock(_ id: String? = nil) -> (ended: [String], inProcess: Bool) {
        let taken = entries.withLock { entries -> [Entry] in
            let matching = entries.filter { id == nil || $0.value.providerID == id }
            for key in matching.keys { entries.removeValue(forKey: key) }
            return Array(matching.values)
        }
        var inProcess = false
        for entry in taken {
            if let helper = entry.connection as? HelperConnection {
                helper.endHelper()
            } else {
                inProcess = true
            }
        }
        return (Array(Set(taken.map(\.providerID))).sorted(), inProcess)
    }

    /// The ids of the providers running now, with the pid of each one's helper (nil: in process, or
    /// not started again since it ended).
    /// Whether every provider of `ids` has a connection here (a warm request launches none).
    func holds(_ ids: [String]) -> Bool {
        entries.withLock { entries in ids.allSatisfy { entries[$0] != nil } }
    }

    public var running: [(id: String, pid: Int32?)] {
        entries.withLock { entries in
            entries.values.map { ($0.providerID, ($0.connection as? HelperConnection)?.helperProcessID) }
        }.sorted { $0.id < $1.id }
    }
}

/// A pooled connection as one request sees it: its sends carry the request's UI
/// (``ProviderSession/requestUserInterface``), since the connection outlives the client it was
/// launched for; and `refusal` (the pool's policy check) is asked before each send and again before
/// its answer is handed over, so a request never gets an answer the provider gave after a stronger
/// request than it reached it.
final class ScopedConnection: ProviderConnection {
    let base: any ProviderConnection
    let userInterface: any ProviderUserInterface
    let refusal: @Sendable () -> AutofillError?

    init(_ base: any ProviderConnection, userInterface: any ProviderUserInterface, refusal: @escaping @Sendable () -> AutofillError?) {
        self.base = base
        self.userInterface = userInterface
        self.refusal = refusal
    }

    var manifest: PluginManifest { base.manifest }
    var entryPoints: EntryPoints { base.entryPoints }
    var strayCompletions: Int { base.strayCompletions }

    func send(_ request: ProviderRequest, deadline: Duration?) async -> ProviderOutcome {
        if let refused = refusal() { return .failed(ProviderFailure(.transport, refused.message)) }
        let outcome = await ProviderSession.$requestUserInterface.withValue(userInterface) {
            await base.send(request, deadline: deadline)
        }
        if let refused = refusal() { return .failed(ProviderFailure(.transport, refused.message)) }
        return outcome
    }
}
