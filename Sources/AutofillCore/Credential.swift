/// A user name and password (`ASPasswordCredential`).
public struct PasswordCredential: Hashable, Sendable, CustomStringConvertible {
    /// The account's user name.
    public var user: String
    /// The password; prints as `<REDACTED>`.
    public var password: Secret

    /// Creates a password credential.
    public init(user: String, password: Secret) {
        self.user = user
        self.password = password
    }

    public var description: String { "PasswordCredential(user: \(user), password: <REDACTED>)" }
}

/// The result of a passkey sign-in (`ASPasskeyAssertionCredential`).
public struct PasskeyAssertionCredential: Hashable, Sendable {
    /// The relying party identifier.
    public var relyingParty: String
    /// The credential id that signed.
    public var credentialID: [UInt8]
    /// The relying party's user handle.
    public var userHandle: [UInt8]
    /// WebAuthn authenticator data.
    public var authenticatorData: [UInt8]
    /// The signature over authenticator data and client data hash.
    public var signature: [UInt8]
    /// The client data hash that was signed.
    public var clientDataHash: [UInt8]
    /// WebAuthn extension outputs as JSON object text, if any.
    public var extensionOutputsJSON: String?

    /// Creates an assertion credential.
    public init(
        relyingParty: String, credentialID: [UInt8], userHandle: [UInt8], authenticatorData: [UInt8],
        signature: [UInt8], clientDataHash: [UInt8], extensionOutputsJSON: String? = nil
    ) {
        self.relyingParty = relyingParty
        self.credentialID = credentialID
        self.userHandle = userHandle
        self.authenticatorData = authenticatorData
        self.signature = signature
        self.clientDataHash = clientDataHash
        self.extensionOutputsJSON = extensionOutputsJSON
    }
}

/// The result of a passkey registration (`ASPasskeyRegistrationCredential`).
public struct PasskeyRegistrationCredential: Hashable, Sendable {
    /// The relying party identifier.
    public var relyingParty: String
    /// The new credential's id.
    public var credentialID: [UInt8]
    /// The CBOR attestation object.
    public var attestationObject: [UInt8]
    /// The client data hash the registration answers.
    public var clientDataHash: [UInt8]
    /// WebAuthn extension outputs as JSON object text, if any.
    public var extensionOutputsJSON: String?

    /// Creates a registration credential.
    public init(
        relyingParty: String, credentialID: [UInt8], attestationObject: [UInt8], clientDataHash: [UInt8],
        extensionOutputsJSON: String? = nil
    ) {
        self.relyingParty = relyingParty
        self.credentialID = credentialID
        self.attestationObject = attestationObject
        self.clientDataHash = clientDataHash
        self.extensionOutputsJSON = extensionOutputsJSON
    }
}

/// What a provider completes a request with.
public enum Credential: Hashable, Sendable, CustomStringConvertible {
    /// A user name and password.
    case password(PasswordCredential)
    /// A passkey sign-in.
    case passkeyAssertion(PasskeyAssertionCredential)
    /// A new passkey.
    case passkeyRegistration(PasskeyRegistrationCredential)
    /// A one-time code (`ASOneTimeCodeCredential`).
    case oneTimeCode(Secret)
    /// Text the user chose to insert.
    case text(Secret)
    /// The extension configuration finished.
    case configurationCompleted
    /// The password of a save request is saved (`completeSavePasswordRequest`).
    case passwordSaved
    /// A generated password (`completeGeneratePasswordRequest(results:)`).
    case generatedPassword(Secret)
    /// A credential-update report was handled.
    case updateReported

    /// The completion's kind, for checking it fits the request.
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        case password, passkeyAssertion, passkeyRegistration, oneTimeCode, text, configurationCompleted
        case passwordSaved, generatedPassword, updateReported
    }

    /// This credential's kind.
    public var kind: Kind {
        switch self {
        case .password: .password
        case .passkeyAssertion: .passkeyAssertion
        case .passkeyRegistration: .passkeyRegistration
        case .oneTimeCode: .oneTimeCode
        case .text: .text
        case .configurationCompleted: .configurationCompleted
        case .passwordSaved: .passwordSaved
        case .generatedPassword: .generatedPassword
        case .updateReported: .updateReported
        }
    }

    public var description: String {
        switch self {
        case .password(let credential): credential.description
        case .passkeyAssertion(let assertion): "PasskeyAssertion(rp: \(assertion.relyingParty))"
        case .passkeyRegistration(let registration): "PasskeyRegistration(rp: \(registration.relyingParty))"
        case .oneTimeCode: "OneTimeCode(<REDACTED>)"
        case .text: "Text(<REDACTED>)"
        case .configurationCompleted: "ConfigurationCompleted"
        case .passwordSaved: "PasswordSaved"
        case .generatedPassword: "GeneratedPassword(<REDACTED>)"
        case .updateReported: "UpdateReported"
        }
    }
}
