public import AutofillStore
public import FoundationEssentials

/// What the user approved of one provider: its files' SHA-256, where they were, when, and how.
public struct TrustRecord: Codable, Equatable, Sendable {
    /// How the record came about.
    public enum Origin: String, Codable, Sendable {
        /// `autofill providers enable`.
        case enabled
        /// `autofill providers trust`.
        case trusted
        /// The provider was enabled in the configuration by hand and this host ran it first (trust on first use).
        case firstUse
    }

    /// The digests of the library and the Info.plist.
    public var fingerprint: PluginFingerprint
    /// The bundle directory they were read from.
    public var bundle: String
    /// The library's file name in the bundle (`CFBundleExecutable`).
    public var executable: String
    /// When they were recorded.
    public var recorded: Date
    /// How.
    public var origin: Origin

    /// Creates a record.
    public init(fingerprint: PluginFingerprint, bundle: String, executable: String, recorded: Date, origin: Origin) {
        self.fingerprint = fingerprint
        self.bundle = bundle
        self.executable = executable
        self.recorded = recorded
        self.origin = origin
    }

    /// "since you enabled it", "since you trusted it", "since autofill first ran it".
    public var sinceWhat: String {
        switch origin {
        case .enabled: "since you enabled it"
        case .trusted: "since you trusted it"
        case .firstUse: "since autofill first ran it"
        }
    }
}

/// The trust records of one configuration: `trust.json` in its identity-store folder (so a throwaway
/// configuration with its own `IdentityStoreDirectory` never touches the user's records).
public struct TrustStore: Sendable {
    struct Document: Codable, Sendable {
        var version = 1
        var providers: [String: TrustRecord] = [:]
    }

    /// The file name inside the identity-store folder.
    public static let fileName = "trust.json"

    private let file: StateFile<Document>

    /// The path of the records file.
    public var path: String { file.path }

    /// The records kept in `folder`.
    public init(folder: IdentityStoreDirectory) {
        file = StateFile(path: "\(folder.path)/\(Self.fileName)", what: "the trust records", empty: { Document() })
    }

    /// The record of provider `id`, if any.
    public func record(for id: String) throws(AutofillError) -> TrustRecord? {
        try file.read().providers[id]
    }

    /// Records (replacing any earlier record) what the user approved of provider `id`.
    public func save(_ record: TrustRecord, for id: String) throws(AutofillError) {
        try file.update { (document: inout Document) throws(AutofillError) in document.providers[id] = record }
    }

    /// Records `record` for provider `id` unless it has one already; returns the record kept.
    public func saveIfAbsent(_ record: TrustRecord, for id: String) throws(AutofillError) -> TrustRecord {
        try file.update { (document: inout Document) throws(AutofillError) -> TrustRecord in
            if let existing = document.providers[id] { return existing }
            document.providers[id] = record
            return record
        }
    }

    /// Forgets provider `id` (when it is disabled); returns the record it had.
    @discardableResult
    public func remove(_ id: String) throws(AutofillError) -> TrustRecord? {
        guard try record(for: id) != nil else { return nil }
        return try file.update { (document: inout Document) throws(AutofillError) in document.providers.removeValue(forKey: id) }
    }
}
