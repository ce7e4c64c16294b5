internal import AutofillCore

/// The payload's form of an entry: `{"kind": "...", "id": "...", ...}`.
extension VaultEntry: Codable {
    private enum Keys: String, CodingKey {
        case kind, id, service, user, password, rank, notes, label, uri, title, text
    }

    public init(from decoder: any Decoder) throws {
        let raw = try JSONValue(from: decoder)
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
        default:
            self = .unknown(UnknownEntry(kind: kind, id: id, raw: raw))
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
        case .unknown:
            break
        }
    }
}
