/// A credential-update report (`SupportsCredentialUpdate`): what a site says about credentials it
/// no longer accepts or whose account changed. The provider applies it (hides, demotes, removes or
/// renames); it never shows the user an error for it.
public enum CredentialUpdate: Hashable, Sendable, CustomStringConvertible {
    /// `reportUnusedPasswordCredential(forDomain:userName:)`: the site no longer uses this password.
    case unusedPassword(domain: String, user: String)
    /// `reportUnknownPublicKeyCredential(forRelyingParty:credentialID:)` (WebAuthn's
    /// `signalUnknownCredential`): the relying party does not know this passkey.
    case unknownPasskey(relyingParty: String, credentialID: [UInt8])
    /// `reportAllAcceptedPublicKeyCredentials(forRelyingParty:userHandle:acceptedCredentialIDs:)`
    /// (`signalAllAcceptedCredentials`): only these passkeys of the account are accepted.
    case acceptedPasskeys(relyingParty: String, userHandle: [UInt8], credentialIDs: [[UInt8]])
    /// `reportPublicKeyCredentialUpdate(forRelyingParty:userHandle:newName:)`
    /// (`signalCurrentUserDetails`): the account's name and display name now.
    case passkeyUserDetails(relyingParty: String, userHandle: [UInt8], name: String, displayName: String)

    /// The password domain or relying party the report is about.
    public var service: String {
        switch self {
        case .unusedPassword(let domain, _): domain
        case .unknownPasskey(let relyingParty, _), .acceptedPasskeys(let relyingParty, _, _),
            .passkeyUserDetails(let relyingParty, _, _, _):
            relyingParty
        }
    }

    /// Whether the report is about passkeys (a WebAuthn signal).
    public var isPasskeySignal: Bool {
        if case .unusedPassword = self { false } else { true }
    }

    public var description: String {
        switch self {
        case .unusedPassword(let domain, let user): "unused password of \(user) at \(domain)"
        case .unknownPasskey(let relyingParty, _): "unknown passkey at \(relyingParty)"
        case .acceptedPasskeys(let relyingParty, _, let ids): "\(ids.count) accepted passkeys at \(relyingParty)"
        case .passkeyUserDetails(let relyingParty, _, let name, _): "user details at \(relyingParty): \(name)"
        }
    }
}
