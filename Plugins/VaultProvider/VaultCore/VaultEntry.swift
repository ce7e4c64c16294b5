public import AutofillCore

/// A login: a user name and password for one service.
public struct PasswordEntry: Hashable, Sendable, CustomStringConvertible {
    /// The entry's stable id; the identity's record identifier.
    public var id: String
    /// The domain or URL the login is for.
    public var service: ServiceIdentifier
    /// The account's user name.
    public var user: String
    /// The password; prints as `<REDACTED>`.
    public var password: Secret
    /// Larger ranks come first among logins for the same service.
    public var rank: Int
    /// Free-form notes, treated as secret; prints as `<REDACTED>`.
    public var notes: Secret?

    /// Creates a login entry.
    public init(id: String, service: ServiceIdentifier, user: String, password: Secret, rank: Int = 0, notes: Secret? = nil) {
        self.id = id
        self.service = service
        self.user = user
        self.password = password
        self.rank = rank
        self.notes = notes
    }

    public var description: String { "PasswordEntry(id: \(id), service: \(service), user: \(user), password: <REDACTED>)" }
}

/// A one-time-code generator: an otpauth URI (which holds the seed) for one service.
public struct OneTimeCodeEntry: Hashable, Sendable, CustomStringConvertible {
    /// The entry's stable id; the identity's record identifier.
    public var id: String
    /// The domain or URL the codes are for.
    public var service: ServiceIdentifier
    /// What the user sees, usually the account name.
    public var label: String
    /// The `otpauth://` URI with the seed; prints as `<REDACTED>`.
    public var uri: Secret
    /// Larger ranks come first among codes for the same service.
    public var rank: Int

    /// Creates a one-time-code entry.
    public init(id: String, service: ServiceIdentifier, label: String, uri: Secret, rank: Int = 0) {
        self.id = id
        self.service = service
        self.label = label
        self.uri = uri
        self.rank = rank
    }

    public var description: String { "OneTimeCodeEntry(id: \(id), service: \(service), label: \(label), uri: <REDACTED>)" }
}

/// A text snippet to insert (an address, a canned reply).
public struct TextEntry: Hashable, Sendable, CustomStringConvertible {
    /// The entry's stable id.
    public var id: String
    /// What the user sees in the list.
    public var title: String
    /// The text; prints as `<REDACTED>`.
    public var text: Secret

    /// Creates a text entry.
    public init(id: String, title: String, text: Secret) {
        self.id = id
        self.title = title
        self.text = text
    }

    public var description: String { "TextEntry(id: \(id), title: \(title), text: <REDACTED>)" }
}

/// A passkey: an ES256 (P-256) WebAuthn credential for one relying party and account.
///
/// The private key is kept as ``Secret`` (base64url of the 32-byte P-256 scalar) and never printed;
/// the signature counter goes up by one with every assertion, saved before the assertion is handed out.
public struct PasskeyEntry: Hashable, Sendable, CustomStringConvertible {
    /// The entry's stable id; the identity's record identifier.
    public var id: String
    /// The WebAuthn relying party id (`example.com`).
    public var relyingParty: String
    /// The account's user name as the relying party gave it.
    public var userName: String
    /// The relying party's opaque user handle (1–64 bytes).
    public var userHandle: [UInt8]
    /// The WebAuthn credential id.
    public var credentialID: [UInt8]
    /// The P-256 private key, base64url of its 32-byte scalar; prints as `<REDACTED>`.
    public var privateKey: Secret
    /// The signature counter of the last assertion (0 after registration).
    public var signCount: UInt32
    /// When the passkey was created, in seconds since 1970.
    public var created: Int64
    /// Larger ranks come first among passkeys for the same relying party.
    public var rank: Int

    /// Creates a passkey entry.
    public init(
        id: String, relyingParty: String, userName: String, userHandle: [UInt8], credentialID: [UInt8], privateKey: Secret,
        signCount: UInt32 = 0, created: Int64, rank: Int = 0
    ) {
        self.id = id
        self.relyingParty = relyingParty
        self.userName = userName
        self.userHandle = userHandle
        self.credentialID = credentialID
        self.privateKey = privateKey
        self.signCount = signCount
        self.created = created
        self.rank = rank
    }

    public var description: String {
        "PasskeyEntry(id: \(id), relyingParty: \(relyingParty), userName: \(userName), signCount: \(signCount), privateKey: <REDACTED>)"
    }
}

/// An entry of a kind this version does not know (written by a newer version), kept as it was.
public struct UnknownEntry: Hashable, Sendable, CustomStringConvertible {
    /// The entry's `kind` field.
    public var kind: String
    /// The entry's id.
    public var id: String
    /// The whole entry as read, written back unchanged.
    var raw: JSONValue

    public var description: String { "UnknownEntry(kind: \(kind), id: \(id), <REDACTED>)" }
}

extension UnknownEntry: CustomReflectable {
    /// The raw entry may hold secrets of a kind this release does not know: `dump` shows none of it.
    public var customMirror: Mirror { Mirror(self, children: ["kind": kind, "id": id, "raw": "<REDACTED>"]) }
}

/// One vault entry. The payload tags each entry with a `kind`, so a later release adds a kind
/// (as passkeys were added) without a new file format; entries of kinds a release does not know are kept as read.
public enum VaultEntry: Hashable, Sendable, CustomStringConvertible {
    case password(PasswordEntry)
    case oneTimeCode(OneTimeCodeEntry)
    case text(TextEntry)
    case passkey(PasskeyEntry)
    case unknown(UnknownEntry)

    /// The entry's stable id.
    public var id: String {
        switch self {
        case .password(let entry): entry.id
        case .oneTimeCode(let entry): entry.id
        case .text(let entry): entry.id
        case .passkey(let entry): entry.id
        case .unknown(let entry): entry.id
        }
    }

    /// The `kind` tag in the payload.
    public var kind: String {
        switch self {
        case .password: "password"
        case .oneTimeCode: "oneTimeCode"
        case .text: "text"
        case .passkey: "passkey"
        case .unknown(let entry): entry.kind
        }
    }

    /// The identity the host may know (no secret), if this kind has one.
    public var identity: CredentialIdentity? {
        switch self {
        case .password(let entry):
            .password(PasswordCredentialIdentity(
                serviceIdentifier: entry.service, user: entry.user, recordIdentifier: entry.id, rank: entry.rank))
        case .oneTimeCode(let entry):
            .oneTimeCode(OneTimeCodeCredentialIdentity(
                serviceIdentifier: entry.service, label: entry.label, recordIdentifier: entry.id, rank: entry.rank))
        case .passkey(let entry):
            .passkey(PasskeyCredentialIdentity(
                relyingPartyIdentifier: entry.relyingParty, userName: entry.userName, credentialID: entry.credentialID,
                userHandle: entry.userHandle, recordIdentifier: entry.id, rank: entry.rank))
        case .text, .unknown:
            nil
        }
    }

    public var description: String {
        switch self {
        case .password(let entry): entry.description
        case .oneTimeCode(let entry): entry.description
        case .text(let entry): entry.description
        case .passkey(let entry): entry.description
        case .unknown(let entry): entry.description
        }
    }
}
