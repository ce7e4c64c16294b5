public import AutofillCore

/// The lookups a fill makes in an unlocked vault, answered from dictionaries built once per read
/// of the file, so a fill neither scans nor decodes the whole vault.
///
/// Each lookup answers what the same search through ``VaultContents/entries`` in entry order would:
/// where several entries match (two logins with the same service and user), the first one added.
public struct VaultIndex: Sendable {
    /// The logins, in entry order (the lists the user chooses from).
    public let passwords: [PasswordEntry]
    /// The one-time-code generators, in entry order.
    public let oneTimeCodes: [OneTimeCodeEntry]
    /// The text snippets, in entry order.
    public let texts: [TextEntry]
    /// The passkeys, in entry order.
    public let passkeys: [PasskeyEntry]

    private let passwordByID: [String: Int]
    private let passwordByAccount: [Account: Int]
    private let passwordsByUser: [String: [Int]]
    private let codeByID: [String: Int]
    private let codeByAccount: [Account: Int]
    private let passkeyByCredential: [Credential: Int]
    private let passkeysByRelyingParty: [String: [Int]]

    /// A service and a user name (logins) or label (one-time codes).
    private struct Account: Hashable {
        var service: ServiceIdentifier
        var name: String
    }

    /// A relying party and a credential id.
    private struct Credential: Hashable {
        var relyingParty: String
        var id: [UInt8]
    }

    /// The index of `contents`.
    public init(_ contents: VaultContents) {
        let passwords = contents.passwords, oneTimeCodes = contents.oneTimeCodes, passkeys = contents.passkeys
        self.passwords = passwords
        self.oneTimeCodes = oneTimeCodes
        self.passkeys = passkeys
        texts = contents.texts
        passwordByID = Self.first(passwords.indices.map { (passwords[$0].id, $0) })
        passwordByAccount = Self.first(passwords.indices.map { (Account(service: passwords[$0].service, name: passwords[$0].user), $0) })
        passwordsByUser = Dictionary(grouping: passwords.indices) { passwords[$0].user }
        codeByID = Self.first(oneTimeCodes.indices.map { (oneTimeCodes[$0].id, $0) })
        codeByAccount = Self.first(oneTimeCodes.indices.map { (Account(service: oneTimeCodes[$0].service, name: oneTimeCodes[$0].label), $0) })
        passkeyByCredential = Self.first(passkeys.indices.map {
            (Credential(relyingParty: passkeys[$0].relyingParty, id: passkeys[$0].credentialID), $0)
        })
        passkeysByRelyingParty = Dictionary(grouping: passkeys.indices) { passkeys[$0].relyingParty }
    }

    /// A dictionary keeping the first value of each key.
    private static func first<Key: Hashable>(_ pairs: [(Key, Int)]) -> [Key: Int] {
        Dictionary(pairs, uniquingKeysWith: { first, _ in first })
    }

    /// The login a password identity names: by its record identifier when it has one, else by
    /// service and user.
    public func password(for identity: PasswordCredentialIdentity) -> PasswordEntry? {
        if let record = identity.recordIdentifier, !record.isEmpty { return passwordByID[record].map { passwords[$0] } }
        return passwordByAccount[Account(service: identity.serviceIdentifier, name: identity.user)].map { passwords[$0] }
    }

    /// The generator a one-time-code identity names: by its record identifier when it has one, else
    /// by service and label.
    public func oneTimeCode(for identity: OneTimeCodeCredentialIdentity) -> OneTimeCodeEntry? {
        if let record = identity.recordIdentifier, !record.isEmpty { return codeByID[record].map { oneTimeCodes[$0] } }
        return codeByAccount[Account(service: identity.serviceIdentifier, name: identity.label)].map { oneTimeCodes[$0] }
    }

    /// The passkey for `relyingParty` with `credentialID`.
    public func passkey(relyingParty: String, credentialID: [UInt8]) -> PasskeyEntry? {
        passkeyByCredential[Credential(relyingParty: relyingParty, id: credentialID)].map { passkeys[$0] }
    }

    /// The passkeys for `relyingParty`, in entry order.
    public func passkeys(relyingParty: String) -> [PasskeyEntry] {
        (passkeysByRelyingParty[relyingParty] ?? []).map { passkeys[$0] }
    }

    /// The logins with user name `user`, in entry order.
    public func passwords(user: String) -> [PasswordEntry] {
        (passwordsByUser[user] ?? []).map { passwords[$0] }
    }
}
