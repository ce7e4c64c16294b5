/// The flags byte of authenticator data (WebAuthn Level 3 §6.1).
public struct AuthenticatorFlags: OptionSet, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8

    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// UP: the user was present (a tap, a yes, a typed password).
    public static let userPresent = AuthenticatorFlags(rawValue: 0x01)
    /// UV: the user was verified (a PIN, a master password, PAM).
    public static let userVerified = AuthenticatorFlags(rawValue: 0x04)
    /// BE: the credential may be backed up (a multi-device credential).
    public static let backupEligible = AuthenticatorFlags(rawValue: 0x08)
    /// BS: the credential is backed up now.
    public static let backedUp = AuthenticatorFlags(rawValue: 0x10)
    /// AT: attested credential data follows the counter.
    public static let attestedCredentialData = AuthenticatorFlags(rawValue: 0x40)
    /// ED: an extensions map ends the data.
    public static let extensionData = AuthenticatorFlags(rawValue: 0x80)

    /// The flags by name, for messages: `UP UV AT`.
    public var description: String {
        let names: [(AuthenticatorFlags, String)] = [
            (.userPresent, "UP"), (.userVerified, "UV"), (.backupEligible, "BE"), (.backedUp, "BS"),
            (.attestedCredentialData, "AT"), (.extensionData, "ED"),
        ]
        var parts = names.filter { contains($0.0) }.map(\.1)
        let reserved = rawValue & 0x22
        if reserved != 0 { parts.append("RFU(0x\(String(reserved, radix: 16)))") }
        return parts.isEmpty ? "none" : parts.joined(separator: " ")
    }
}
