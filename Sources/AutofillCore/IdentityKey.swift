/// The identity that `save` replaces: two identities with the same key are the same credential.
///
/// Rank is not part of the key, so saving an identity again with a new rank replaces it.
public struct IdentityKey: Hashable, Sendable {
    private let parts: [String]
    private let bytes: [UInt8]

    /// The key of `identity`.
    public init(_ identity: CredentialIdentity) {
        switch identity {
        case .password(let id):
            parts = ["password", id.serviceIdentifier.type.rawValue, id.serviceIdentifier.identifier, id.user,
                     id.recordIdentifier ?? ""]
            bytes = []
        case .passkey(let id):
            parts = ["passkey", id.relyingPartyIdentifier]
            bytes = id.credentialID
        case .oneTimeCode(let id):
            parts = ["oneTimeCode", id.serviceIdentifier.type.rawValue, id.serviceIdentifier.identifier, id.label,
                     id.recordIdentifier ?? ""]
            bytes = []
        }
    }
}
