/// The identity that `save` replaces: two identities with the same key are the same credential.
///
/// Passwords and one-time codes: kind, service type, service, user (or label) and record
/// identifier. Passkeys: relying party and credential id. Rank is not part of the key, so saving
/// an identity again with a new rank replaces it. Compared byte for byte; an empty record
/// identifier is the same as none (the C ABI cannot tell them apart).
public struct IdentityKey: Hashable, Sendable {
    /// A canonical byte encoding: a kind byte, then each part as a 4-byte length and its UTF-8.
    public let bytes: [UInt8]

    /// The key of `identity`.
    public init(_ identity: CredentialIdentity) {
        var bytes: [UInt8] = []
        func part(_ value: some Collection<UInt8>) {
            let count = UInt32(truncatingIfNeeded: value.count)
            bytes.append(contentsOf: [UInt8(count >> 24), UInt8(count >> 16 & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)])
            bytes.append(contentsOf: value)
        }
        switch identity {
        case .password(let id):
            bytes.append(1)
            part(id.serviceIdentifier.type.rawValue.utf8)
            part(id.serviceIdentifier.identifier.utf8)
            part(id.user.utf8)
            part((id.recordIdentifier ?? "").utf8)
        case .passkey(let id):
            bytes.append(2)
            part(id.relyingPartyIdentifier.utf8)
            part(id.credentialID)
        case .oneTimeCode(let id):
            bytes.append(3)
            part(id.serviceIdentifier.type.rawValue.utf8)
            part(id.serviceIdentifier.identifier.utf8)
            part(id.label.utf8)
            part((id.recordIdentifier ?? "").utf8)
        }
        self.bytes = bytes
    }
}
