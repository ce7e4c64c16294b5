/// WebAuthn's `userVerification` preference.
public enum UserVerificationPreference: String, Hashable, Sendable, Codable, CaseIterable {
    case required, preferred, discouraged
}

/// Whether a passkey registration is a normal one or an automatic upgrade.
public enum PasskeyRegistrationStyle: String, Hashable, Sendable, Codable, CaseIterable {
    /// The user asked to create a passkey; UI allowed.
    case standard
    /// Automatic passkey upgrade after a password sign-in; never any UI.
    case conditional
}

/// The WebAuthn parameters of a passkey request (`ASPasskeyCredentialRequestParameters`).
public struct PasskeyParameters: Hashable, Sendable {
    /// The relying party identifier.
    public var relyingParty: String
    /// SHA-256 of the client data JSON.
    public var clientDataHash: [UInt8]
    /// The relying party's user-verification preference.
    public var userVerification: UserVerificationPreference
    /// Registration only: standard or conditional.
    public var style: PasskeyRegistrationStyle
    /// `allowCredentials` for an assertion (empty: any), `excludeCredentials` for a registration.
    public var credentialIDs: [[UInt8]]
    /// Registration only: COSE algorithm identifiers in preference order.
    public var algorithms: [Int]
    /// WebAuthn extension inputs as JSON object text, if any.
    public var extensionsJSON: String?
    /// The host confirmed the user was present just before this request (its own prompt).
    /// Not sent for list requests; false for conditional registration.
    public var hostUserPresent: Bool
    /// The host verified the user (PAM) just before this request: the provider may set UV.
    public var hostUserVerified: Bool
    /// Conditional registration only: the host delivered a password of this provider for this user at
    /// the relying party (its host or a subdomain) within its recent-fill window. Only fills the host
    /// completed count: a password the user declined at the host's authentication never does.
    public var hostRecentPasswordFill: Bool
    /// The host's UI for this request is not a person (a UI script, or none): answers to the
    /// provider's UI establish no presence, so UP may come only from ``hostUserPresent``.
    public var hostUserInterfaceScripted: Bool

    /// Creates passkey parameters.
    public init(
        relyingParty: String, clientDataHash: [UInt8], userVerification: UserVerificationPreference = .preferred,
        style: PasskeyRegistrationStyle = .standard, credentialIDs: [[UInt8]] = [], algorithms: [Int] = [],
        extensionsJSON: String? = nil, hostUserPresent: Bool = false, hostUserVerified: Bool = false,
        hostRecentPasswordFill: Bool = false, hostUserInterfaceScripted: Bool = false
    ) {
        self.relyingParty = relyingParty
        self.clientDataHash = clientDataHash
        self.userVerification = userVerification
        self.style = style
        self.credentialIDs = credentialIDs
        self.algorithms = algorithms
        self.extensionsJSON = extensionsJSON
        self.hostUserPresent = hostUserPresent
        self.hostUserVerified = hostUserVerified
        self.hostRecentPasswordFill = hostRecentPasswordFill
        self.hostUserInterfaceScripted = hostUserInterfaceScripted
    }
}

/// A request for the credential behind one identity (`ASCredentialRequest`).
public enum CredentialRequest: Hashable, Sendable {
    /// A password for a password identity.
    case password(PasswordCredentialIdentity)
    /// A passkey assertion for a passkey identity.
    case passkeyAssertion(PasskeyCredentialIdentity, PasskeyParameters)
    /// A one-time code for a one-time-code identity.
    case oneTimeCode(OneTimeCodeCredentialIdentity)

    /// The identity the user picked.
    public var identity: CredentialIdentity {
        switch self {
        case .password(let identity): .password(identity)
        case .passkeyAssertion(let identity, _): .passkey(identity)
        case .oneTimeCode(let identity): .oneTimeCode(identity)
        }
    }
}

/// A request to create a passkey (`ASPasskeyCredentialRequest` for registration).
public struct PasskeyRegistrationRequest: Hashable, Sendable {
    /// The new passkey's relying party, user name and user handle (no credential id yet).
    public var identity: PasskeyCredentialIdentity
    /// The WebAuthn parameters; `credentialIDs` are the excluded credentials.
    public var parameters: PasskeyParameters

    /// Creates a registration request.
    public init(identity: PasskeyCredentialIdentity, parameters: PasskeyParameters) {
        self.identity = identity
        self.parameters = parameters
    }
}
