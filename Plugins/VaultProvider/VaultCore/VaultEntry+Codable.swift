internal import AutofillCore

/// The payload's form of an entry: `{"kind": "...", "id": "...", ...}`.
extension VaultEntry: Codable {
    private enum Keys: String, CodingKey {
        case kind, id, service, user, password, rank, notes, label, uri, title, text
        case relyingParty, userName, userHandle, credentialID, privateKey, signCount, created
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        let kind = try container.decode(String.self, forKey: .kind)
        let id = try container.decode(String.self, forKey: .id)
        switch kind {
        case "password":
            self = .password(PasswordEntry(
                id: id, service: try container.decode(ServiceIdentifier.self, forKey: .service),
                user: try container.decode(String.self, forKey: .user),
                password: Secret(try container.decode(String.self, forKey: .password)),
                rank: try container.decodeIfPresent(Int.self, forKey: .rank) ?? 0,
                notes: try container.decodeIfPresent(String.self, forKey: .notes).map(Secret.init)))
        case "oneTimeCode":
            self = .oneTimeCode(OneTimeCodeEntry(
                id: id, service: try container.decode(ServiceIdentifier.self, forKey: .service),
                label: try container.decode(String.self, forKey: .label),
                uri: Secret(try container.decode(String.self, forKey: .uri)),
                rank: try container.decodeIfPresent(Int.self, forKey: .rank) ?? 0))
        case "text":
            self = .text(TextEntry(
                id: id, title: try container.decode(String.self, forKey: .title),
                text: Secret(try container.decode(String.self, forKey: .text))))
        case "passkey":
            self = .passkey(PasskeyEntry(
                id: id, relyingParty: try container.decode(String.self, forKey: .relyingParty),
                userName: try container.decode(String.self, forKey: .userName),
                userHandle: try Self.bytes(container, .userHandle), credentialID: try Self.bytes(container, .credentialID),
                privateKey: Secret(try container.decode(String.self, forKey: .privateKey)),
                signCount: try container.decodeIfPresent(UInt32.self, forKey: .signCount) ?? 0,
                created: try container.decode(Int64.self, forKey: .created),
                rank: try container.decodeIfPresent(Int.self, forKey: .rank) ?? 0))
        default:
            // Only an entry of a kind this release does not know is read whole, to be written back as
            // it was: reading every entry whole as well made decoding a vault about four times as slow
            // (docs/PERFORMANCE.md).
            self = .unknown(UnknownEntry(kind: kind, id: id, raw: try JSONValue(from: decoder)))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        if case .unknown(let entry) = self {
            try entry.raw.encode(to: encoder)
            return
        }
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(kind, forKey: .kind)
        try container.encode(id, forKey: .id)
        switch self {
        case .password(let entry):
            try container.encode(entry.service, forKey: .service)
            try container.encode(entry.user, forKey: .user)
            try container.encode(entry.password.revealed, forKey: .password)
            try container.encode(entry.rank, forKey: .rank)
            try container.encodeIfPresent(entry.notes?.revealed, forKey: .notes)
        case .oneTimeCode(let entry):
            try container.encode(entry.service, forKey: .service)
            try container.encode(entry.label, forKey: .label)
            try container.encode(entry.uri.revealed, forKey: .uri)
            try container.encode(entry.rank, forKey: .rank)
        case .text(let entry):
            try container.encode(entry.title, forKey: .title)
            try container.encode(entry.text.revealed, forKey: .text)
        case .passkey(let entry):
            try container.encode(entry.relyingParty, forKey: .relyingParty)
            try container.encode(entry.userName, forKey: .userName)
            try container.encode(Base64URL.encode(entry.userHandle), forKey: .userHandle)
            try container.encode(Base64URL.encode(entry.credentialID), forKey: .credentialID)
            try container.encode(entry.privateKey.revealed, forKey: .privateKey)
            try container.encode(entry.signCount, forKey: .signCount)
            try container.encode(entry.created, forKey: .created)
            try container.encode(entry.rank, forKey: .rank)
        case .unknown:
            break
        }
    }

    /// A base64url field as bytes; a malformed one names the field (never its value).
    private static func bytes(_ container: KeyedDecodingContainer<Keys>, _ key: Keys) throws -> [UInt8] {
        guard let bytes = Base64URL.decode(try container.decode(String.self, forKey: key)) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "not base64url")
        }
        return bytes
    }
}
