/// Why a secret, an `otpauth://` URI or a set of one-time-code parameters was refused.
///
/// ``message`` says what was wrong and shows a valid example. It never contains the secret:
/// when it quotes a URI, the URI is redacted first (see ``OTPAuthURI/redacted(_:)``).
public struct OTPError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong, as a stable code.
    public enum Code: String, Hashable, Sendable, CaseIterable {
        /// The text is not an `otpauth://` URI at all.
        case notOTPAuthURI
        /// A percent escape is broken, or the decoded text is not UTF-8.
        case malformedURI
        /// The type (the URI's host) is neither `totp` nor `hotp`.
        case unknownType
        /// The label (the account name) is missing or empty.
        case missingLabel
        /// The `secret` parameter is missing or empty.
        case missingSecret
        /// The secret is not valid Base32 (RFC 4648).
        case invalidSecret
        /// The number of digits is not 6, 7 or 8.
        case invalidDigits
        /// The TOTP period is not a positive whole number of seconds.
        case invalidPeriod
        /// The algorithm is not SHA1, SHA256 or SHA512.
        case unknownAlgorithm
        /// An HOTP URI without the `counter` parameter.
        case missingCounter
        /// The HOTP counter is not a whole number from 0 to 2^64 − 1.
        case invalidCounter
        /// A parameter appears twice.
        case duplicateParameter
        /// The label, the `issuer` or the `af_domain` holds a secret (the secret's letters, or a
        /// `secret=`): they are kept and shown in the clear.
        case misplacedSecret
    }

    /// The stable code.
    public let code: Code
    /// What was wrong and how to write it; never contains the secret.
    public let message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
