/// Why a WebAuthn structure (COSE key, authenticator data, attestation object, signature) was refused.
///
/// ``message`` names the structure and field and what was expected; it never holds a private key.
public struct WebAuthnError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of structure was wrong.
    public enum Code: String, Hashable, Sendable, CaseIterable {
        /// A COSE key is malformed (missing or wrong fields, a point not on the curve).
        case malformedCOSEKey
        /// A COSE key or request uses an algorithm this library does not implement (only ES256, -7).
        case unsupportedAlgorithm
        /// Authenticator data is malformed (length, flags, attested credential data).
        case malformedAuthenticatorData
        /// An attestation object is malformed (not a map, missing `fmt`, `attStmt` or `authData`).
        case malformedAttestationObject
        /// A signature could not be made or is not DER.
        case signature
    }

    /// The error's code.
    public var code: Code
    /// What was wrong, naming the field.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
