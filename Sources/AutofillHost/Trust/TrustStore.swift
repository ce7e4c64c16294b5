public import FoundationEssentials

/// What the user approved of one provider: its files' SHA-256, where they were, when, and how.
public struct TrustRecord: Codable, Equatable, Sendable {
    /// How the record came about.
    public enum Origin: String, Codable, Sendable {
        /// `autofill providers enable`.
        case enabled
        /// `autofill providers trust`.
        case trusted
        /// The provider was listed in the configuration by hand, and the user answered yes when autofill
        /// asked at the terminal before running it the first time.
        case confirmed
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
    /// The sandbox permissions approved with the files (``SandboxDeclaration/permissionKeys``); nil in a
    /// record made before autofill had a sandbox, which approves none.
    public var permissions: [String]?
    /// What its declared files reached when approved, resolved (`grant:read:/home/u/.netrc`,
    /// ``ProviderSetup/grantKeys(of:)``): a launch whose settings reach more is refused until approved.
    /// Nil in a record made before autofill recorded them.
    public var grants: [String]?

    /// Creates a record.
    public init(fingerprint: PluginFingerprint, bundle: String, executable: String, recorded: Date, origin: Origin,
                permissions: [String]? = nil, grants: [String]? = nil) {
        self.fingerprint = fingerprint
        self.bundle = bundle
        self.executable = executable
        self.recorded = recorded
        self.origin = origin
        self.permissions = permissions
        self.grants = grants
    }

    /// "since you enabled it", "since you trusted it", "since you approved it".
    public var sinceWhat: String {
        switch origin {
        case .enabled: "since you enabled it"
        case .trusted: "since you trusted it"
        case .confirmed: "since you approved it"
        }
    }
}

/// The user's trust records: `trust.json` in ``HostRecords`` (one per-user folder, whatever the
/// configuration says), one record per provider id *and* bundle path. A configuration that points at
/// another bundle declaring the same id finds no record for it, so nothing is trusted on its word.
public struct TrustStore: Sendable {
    struct Document: Codable, Sendable {
        /// 2: records keyed by id, then bundle path (version 1 was keyed by id, next to the identity stores).
        var version = 2
        var providers: [String: [String: TrustRecord]] = [:]
    }

    /// The file name inside the records folder.
    public static let fileName = "trust.json"

    private let file: StateFile<Document>

    /// The path of the records file.
    public var path: String { file.path }

    /// The records kept in `folder`.
    public init(folder: HostRecords) {
        file = StateFile(path: folder.file(Self.fileName), what: "the trust records", empty: { Document() })
    }

    /// The record of provider `id` at bundle path `bundle`, if any.
    public func record(for id: String, bundle: String) throws(AutofillError) -> TrustRecord? {
        try file.read().providers[id]?[bundle]
    }

    /// Records (replacing any earlier record) what the user approved of provider `id` (at `record.bundle`).
    public func save(_ record: TrustRecord, for id: String) throws(AutofillError) {
        try file.update { (document: inout Document) throws(AutofillError) in document.providers[id, default: [:]][record.bundle] = record }
    }

    /// Records `record` for provider `id` unless it has one at that bundle path already; returns the record kept.
    public func saveIfAbsent(_ record: TrustRecord, for id: String) throws(AutofillError) -> TrustRecord {
        try file.update { (document: inout Document) throws(AutofillError) -> TrustRecord in
            if let existing = document.providers[id]?[record.bundle] { return existing }
            document.providers[id, default: [:]][record.bundle] = record
            return record
        }
    }

    /// Forgets the record of provider `id` at `bundle`; returns the record it had.
    @discardableResult
    public func remove(_ id: String, bundle: String) throws(AutofillError) -> TrustRecord? {
        guard try record(for: id, bundle: bundle) != nil else { return nil }
        return try file.update { (document: inout Document) throws(AutofillError) -> TrustRecord? in
            let removed = document.providers[id]?.removeValue(forKey: bundle)
            if document.providers[id]?.isEmpty == true { document.providers[id] = nil }
            return removed
        }
    }
}
