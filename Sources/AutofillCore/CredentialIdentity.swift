/// A password credential the host may suggest without its secret (`ASPasswordCredentialIdentity`).
public struct PasswordCredentialIdentity: Hashable, Sendable, Codable {
    /// The service this password is for.
    public var serviceIdentifier: ServiceIdentifier
    /// The account's user name.
    public var user: String
    /// The provider's own key for the record, if it has one.
    public var recordIdentifier: String?
    /// Larger values come first among identities with the same service identifier.
    public var rank: Int

    /// Creates a password identity.
    public init(serviceIdentifier: ServiceIdentifier, user: String, recordIdentifier: String? = nil, rank: Int = 0) {
        self.serviceIdentifier = serviceIdentifier
        self.user = user
        self.recordIdentifier = recordIdentifier
        self.rank = rank
    }
}

/// A passkey the host may suggest without its private key (`ASPasskeyCredentialIdentity`).
public struct PasskeyCredentialIdentity: Hashable, Sendable, Codable {
    /// The WebAuthn relying party identifier (`example.com`).
    public var relyingPartyIdentifier: String
    /// The account's user name as the relying party knows it.
    public var userName: String
    /// The WebAuthn credential id.
    public var credentialID: [UInt8]
    /// The relying party's opaque user handle.
    public var userHandle: [UInt8]
    /// The provider's own key for the record, if it has one.
    public var recordIdentifier: String?
    /// Larger values come first among identities for the same relying party.
    public var rank: Int

    /// Creates a passkey identity.
    public init(
        relyingPartyIdentifier: String, userName: String, credentialID: [UInt8], userHandle: [UInt8],
        recordIdentifier: String? = nil, rank: Int = 0
    ) {
        self.relyingPartyIdentifier = relyingPartyIdentifier
        self.userName = userName
        self.credentialID = credentialID
        self.userHandle = userHandle
        self.recordIdentifier = recordIdentifier
        self.rank = rank
    }
}

/// A one-time-code generator the host may suggest without its seed (`ASOneTimeCodeCredentialIdentity`).
public struct OneTimeCodeCredentialIdentity: Hashable, Sendable, Codable {
    /// The service the codes are for.
    public var serviceIdentifier: ServiceIdentifier
    /// What the user sees, for example the account name.
    public var label: String
    /// The provider's own key for the record, if it has one.
    public var recordIdentifier: String?
    /// Larger values come first among identities with the same service identifier.
    public var rank: Int

    /// Creates a one-time-code identity.
    public init(serviceIdentifier: ServiceIdentifier, label: String, recordIdentifier: String? = nil, rank: Int = 0) {
        self.serviceIdentifier = serviceIdentifier
        self.label = label
        self.recordIdentifier = recordIdentifier
        self.rank = rank
    }
}

/// Any of the three identity kinds (`ASCredentialIdentity`).
public enum CredentialIdentity: Hashable, Sendable {
    case password(PasswordCredentialIdentity)
    case passkey(PasskeyCredentialIdentity)
    case oneTimeCode(OneTimeCodeCredentialIdentity)

    /// The three kinds, for filtering.
    public enum Kind: String, Hashable, Sendable, Codable, CaseIterable {
        case password
        case passkey
        case oneTimeCode
    }

    /// This identity's kind.
    public var kind: Kind {
        switch self {
        case .password: .password
        case .passkey: .passkey
        case .oneTimeCode: .oneTimeCode
        }
    }

    /// The identity's rank value.
    public var rank: Int {
        switch self {
        case .password(let identity): identity.rank
        case .passkey(let identity): identity.rank
        case .oneTimeCode(let identity): identity.rank
        }
    }

    /// The provider's own record key, if any.
    public var recordIdentifier: String? {
        switch self {
        case .password(let identity): identity.recordIdentifier
        case .passkey(let identity): identity.recordIdentifier
        case .oneTimeCode(let identity): identity.recordIdentifier
        }
    }

    /// The user name (password, passkey) or label (one-time code) shown to the user.
    public var displayUser: String {
        switch self {
        case .password(let identity): identity.user
        case .passkey(let identity): identity.userName
        case .oneTimeCode(let identity): identity.label
        }
    }
}
