public import AutofillCore
internal import FoundationEssentials

/// What a vault holds once decrypted: its entries, in the order they were added.
///
/// The encrypted payload is this value as JSON: `{"version": 1, "entries": [ {"kind": ...}, ... ]}`.
public struct VaultContents: Hashable, Sendable {
    /// The payload version this release writes and the newest it reads.
    public static let payloadVersion = 1

    /// Every entry, in the order added.
    public private(set) var entries: [VaultEntry]

    /// Creates contents with these entries.
    public init(entries: [VaultEntry] = []) {
        self.entries = entries
    }

    /// The logins.
    public var passwords: [PasswordEntry] {
        entries.compactMap { if case .password(let entry) = $0 { entry } else { nil } }
    }

    /// The one-time-code generators.
    public var oneTimeCodes: [OneTimeCodeEntry] {
        entries.compactMap { if case .oneTimeCode(let entry) = $0 { entry } else { nil } }
    }

    /// The text snippets.
    public var texts: [TextEntry] {
        entries.compactMap { if case .text(let entry) = $0 { entry } else { nil } }
    }

    /// The passkeys.
    public var passkeys: [PasskeyEntry] {
        entries.compactMap { if case .passkey(let entry) = $0 { entry } else { nil } }
    }

    /// The entry with id `id`.
    public func entry(id: String) -> VaultEntry? {
        entries.first { $0.id == id }
    }

    /// The identities the host may know, in entry order: logins, one-time codes and passkeys, never a secret.
    public var identities: [CredentialIdentity] {
        entries.compactMap(\.identity)
    }

    /// Adds `entry`; its id must be new and valid.
    public mutating func add(_ entry: VaultEntry) throws(VaultError) {
        try Self.checkID(entry.id)
        guard self.entry(id: entry.id) == nil else { throw Self.idInUse(entry.id) }
        entries.append(entry)
    }

    /// Adds `newEntries` in their order, all or none: each id must be valid, not in the vault, and
    /// not repeated among them; the first that is not throws what ``add(_:)`` would throw for it.
    ///
    /// For many entries at once (an import): the ids are checked against one set, where calling
    /// ``add(_:)`` for each would scan every entry for every new one.
    public mutating func add(contentsOf newEntries: [VaultEntry]) throws(VaultError) {
        var ids = Set(entries.map(\.id))
        for entry in newEntries {
            try Self.checkID(entry.id)
            guard ids.insert(entry.id).inserted else { throw Self.idInUse(entry.id) }
        }
        entries.append(contentsOf: newEntries)
    }

    /// The error for adding an entry whose id `id` another entry has.
    static func idInUse(_ id: String) -> VaultError {
        VaultError(.invalidInput, "an entry with id \(id) exists already; choose another id or remove it first")
    }

    /// Replaces the entry that has `entry`'s id.
    public mutating func update(_ entry: VaultEntry) throws(VaultError) {
        guard let index = entries.firstIndex(where: { $0.id == entry.id }) else {
            throw VaultError(.invalidInput, "no entry with id \(entry.id)")
        }
        entries[index] = entry
    }

    /// Removes the entry with id `id`; returns it, or nil if there was none.
    @discardableResult
    public mutating func remove(id: String) -> VaultEntry? {
        guard let index = entries.firstIndex(where: { $0.id == id }) else { return nil }
        return entries.remove(at: index)
    }

    /// A new random entry id.
    public static func newID() -> String {
        UUID().uuidString.lowercased()
    }

    /// Checks an entry id: 1–128 printable characters, no spaces.
    public static func checkID(_ id: String) throws(VaultError) {
        // Cheap answers first (an import checks every new id): no more UTF-8 bytes than 128 means no
        // more characters either, and an ASCII scalar above the space is never whitespace, so only
        // other scalars need a look at their Unicode properties.
        guard !id.isEmpty, id.utf8.count <= 128 || id.count <= 128,
            id.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F && ($0.isASCII || !$0.properties.isWhitespace) })
        else {
            throw VaultError(.invalidInput, "entry id \"\(id)\" is not valid: use 1–128 characters without spaces or control characters")
        }
    }
}

extension VaultContents {
    private struct Payload: Codable {
        var version: Int
        var entries: [VaultEntry]
    }

    /// The payload's JSON bytes.
    func encoded() throws(VaultError) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            return Array(try encoder.encode(Payload(version: Self.payloadVersion, entries: entries)))
        } catch {
            throw VaultError(.invalidInput, "cannot encode the vault's entries: \(error)")
        }
    }

    /// Reads a decrypted payload of the vault at `path`.
    static func decode(_ bytes: Data, path: String) throws(VaultError) -> VaultContents {
        struct Version: Decodable { var version: Int }
        let decoder = JSONDecoder()
        guard let version = try? decoder.decode(Version.self, from: bytes) else {
            throw VaultError(.corrupt, "the vault \(path) decrypted, but its contents are not a vault payload")
        }
        guard version.version <= payloadVersion else {
            throw VaultError(.unsupportedVersion,
                             "the vault \(path) holds payload version \(version.version); this autofill reads up to \(payloadVersion): update autofill")
        }
        do {
            return VaultContents(entries: try decoder.decode(Payload.self, from: bytes).entries)
        } catch {
            // The decoder's message names a field path, never a value.
            throw VaultError(.corrupt, "the vault \(path) decrypted, but an entry is malformed: \(Self.fieldPath(of: error))")
        }
    }

    private static func fieldPath(of error: any Error) -> String {
        guard let error = error as? DecodingError else { return "unreadable JSON" }
        switch error {
        case .keyNotFound(let key, let context): return "missing \((context.codingPath + [key]).map(\.stringValue).joined(separator: "."))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return "bad value at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
        @unknown default: return "unreadable JSON"
        }
    }
}
