public import FoundationEssentials

/// How a provider failed in a way that counts towards quarantine.
public enum ProviderFaultKind: String, Codable, Sendable, CaseIterable {
    /// Its process (or the host, in process) died: a signal, `abort()`, an exit.
    case crashed
    /// It was killed because it missed a deadline (the no-UI request's, or its start's).
    case killedAfterDeadline
    /// It was killed for exceeding a resource limit (the memory ceiling).
    case exceededResourceLimit

    /// "crashed", "was killed after missing its deadline", …
    public var sentence: String {
        switch self {
        case .crashed: "crashed"
        case .killedAfterDeadline: "was killed after missing its deadline"
        case .exceededResourceLimit: "was killed for exceeding a resource limit"
        }
    }
}

/// One fault of a provider, as the ledger keeps it.
public struct FaultRecord: Codable, Equatable, Sendable {
    /// When.
    public var time: Date
    /// What happened.
    public var kind: ProviderFaultKind
    /// What the host saw ("SIGSEGV during provideCredentialWithoutUserInteraction"); never a secret.
    public var message: String
    /// The plugin's files when it happened (nil if they could not be read).
    public var fingerprint: PluginFingerprint?

    /// Creates a fault.
    public init(time: Date, kind: ProviderFaultKind, message: String, fingerprint: PluginFingerprint?) {
        self.time = time
        self.kind = kind
        self.message = message
        self.fingerprint = fingerprint
    }
}

/// A provider the host will not launch until its files change, the user re-enables it or trusts it again.
public struct ProviderQuarantine: Codable, Equatable, Sendable {
    /// Since when (the fault that reached the count).
    public var since: Date
    /// Why, as a sentence ("it crashed or was killed 3 times within 10 minutes; the last time it crashed: …").
    public var reason: String
    /// The plugin's files the faults happened with: other files lift the quarantine.
    public var fingerprint: PluginFingerprint?

    /// Creates a quarantine.
    public init(since: Date, reason: String, fingerprint: PluginFingerprint?) {
        self.since = since
        self.reason = reason
        self.fingerprint = fingerprint
    }
}

/// The user's persistent fault ledger: `faults.json` in ``HostRecords`` (one per-user folder, whatever
/// the configuration says, so a configuration cannot point at an empty ledger to escape a quarantine),
/// one entry per provider id and bundle path.
///
/// Each fault is appended with its time, kind, message and the plugin's fingerprint. When
/// `policy.faultCount` faults with the same fingerprint fall within `policy.windowSeconds`, the
/// provider is quarantined, and stays so — the window only decides when it starts — until
/// ``clear(_:)`` (re-enable, trust) or until its files change (``quarantine(for:fingerprint:)``
/// compares fingerprints). Safe from any thread and any process (see `StateFile`).
public struct FaultLedger: Sendable {
    struct Entry: Codable, Sendable {
        var faults: [FaultRecord] = []
        var quarantine: ProviderQuarantine?
    }

    struct Document: Codable, Sendable {
        /// 2: entries keyed by id, then bundle path (version 1 was keyed by id, next to the identity stores).
        var version = 2
        var providers: [String: [String: Entry]] = [:]
    }

    /// The file name inside the records folder.
    public static let fileName = "faults.json"
    /// At most this many faults are kept per provider.
    static let keptFaults = 100
    /// Longer messages are cut to this many characters.
    static let messageLimit = 500

    private let file: StateFile<Document>
    /// When faults quarantine a provider.
    public let policy: QuarantinePolicy
    /// The clock faults are stamped with.
    public let now: @Sendable () -> Date

    /// The path of the ledger file.
    public var path: String { file.path }

    /// The ledger kept in `folder`, quarantining by `policy`, stamping faults with `now()`.
    public init(folder: HostRecords, policy: QuarantinePolicy = QuarantinePolicy(), now: @escaping @Sendable () -> Date = { Date() }) {
        file = StateFile(path: folder.file(Self.fileName), what: "the fault ledger", empty: { Document() })
        self.policy = policy
        self.now = now
    }

    /// Appends a fault of provider `id` at bundle path `bundle` (stamped now) and returns the provider's
    /// quarantine if it is quarantined now, for these files.
    @discardableResult
    public func record(fault kind: ProviderFaultKind, message: String, fingerprint: PluginFingerprint?, for id: String, bundle: String)
        throws(AutofillError) -> ProviderQuarantine?
    {
        let message = message.count > Self.messageLimit ? String(message.prefix(Self.messageLimit)) + "…" : message
        // Whole seconds: what the file keeps (ISO 8601), so what is returned equals what is read back.
        let time = Date(timeIntervalSince1970: now().timeIntervalSince1970.rounded(.down))
        let fault = FaultRecord(time: time, kind: kind, message: message, fingerprint: fingerprint)
        let policy = policy
        return try file.update { (document: inout Document) throws(AutofillError) -> ProviderQuarantine? in
            var entry = document.providers[id]?[bundle] ?? Entry()
            // Faults of other files, or too old to share a window with this one or a later one, no longer count.
            entry.faults.removeAll { $0.fingerprint != fault.fingerprint || fault.time.timeIntervalSince($0.time) >= policy.windowSeconds }
            entry.faults.append(fault)
            if entry.faults.count > Self.keptFaults { entry.faults.removeFirst(entry.faults.count - Self.keptFaults) }
            if entry.quarantine?.fingerprint != fault.fingerprint { entry.quarantine = nil }
            let inWindow = entry.faults.filter { fault.time.timeIntervalSince($0.time) < policy.windowSeconds }.count
            if entry.quarantine == nil && inWindow >= policy.faultCount {
                let times = policy.faultCount == 1 ? "once" : "\(inWindow) times"
                let within = policy.faultCount == 1 ? "" : " within \(policy.windowDescription)"
                entry.quarantine = ProviderQuarantine(
                    since: fault.time,
                    reason: "it crashed or was killed \(times)\(within); the last time it \(kind.sentence): \(message)",
                    fingerprint: fault.fingerprint)
            }
            document.providers[id, default: [:]][bundle] = entry
            return entry.quarantine
        }
    }

    /// The quarantine of provider `id` at `bundle`, if it is quarantined with the files `fingerprint` describes.
    public func quarantine(for id: String, bundle: String, fingerprint: PluginFingerprint?) throws(AutofillError) -> ProviderQuarantine? {
        guard let quarantine = try file.read().providers[id]?[bundle]?.quarantine, quarantine.fingerprint == fingerprint else { return nil }
        return quarantine
    }

    /// The faults of provider `id` at `bundle` that still count (same files, within the window of the
    /// last one), oldest first.
    public func faults(for id: String, bundle: String) throws(AutofillError) -> [FaultRecord] {
        try file.read().providers[id]?[bundle]?.faults ?? []
    }

    /// Forgets the faults of provider `id` at `bundle` and lifts its quarantine. Returns the quarantine
    /// lifted, if any.
    @discardableResult
    public func clear(_ id: String, bundle: String) throws(AutofillError) -> ProviderQuarantine? {
        guard try file.read().providers[id]?[bundle] != nil else { return nil }
        return try file.update { (document: inout Document) throws(AutofillError) -> ProviderQuarantine? in
            let lifted = document.providers[id]?.removeValue(forKey: bundle)?.quarantine
            if document.providers[id]?.isEmpty == true { document.providers[id] = nil }
            return lifted
        }
    }
}
