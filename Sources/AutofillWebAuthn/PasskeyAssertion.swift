public import AutofillCore
public import Crypto

/// A passkey provider's side of a sign-in: the checks a request must pass before a key signs, and
/// the assertion itself (authenticator data, ES256 over authenticatorData ‖ clientDataHash).
public enum PasskeyAssertion {
    /// Why `parameters` cannot be answered with the credential `credentialID` picked as `identity`,
    /// or nil: the client data hash is not 32 bytes, the identity is for another relying party, or
    /// the relying party's allowCredentials leaves the credential out.
    public static func problem(
        with parameters: PasskeyParameters, identity: PasskeyCredentialIdentity?, credentialID: [UInt8]?
    ) -> String? {
        if let problem = clientDataHashProblem(parameters) { return problem }
        if let identity, !identity.relyingPartyIdentifier.isEmpty, identity.relyingPartyIdentifier != parameters.relyingParty {
            return "the picked passkey is for \(identity.relyingPartyIdentifier), the request for \(parameters.relyingParty)"
        }
        if let credentialID, !parameters.credentialIDs.isEmpty, !parameters.credentialIDs.contains(credentialID) {
            return "\(parameters.relyingParty) did not allow this passkey (it is not in allowCredentials)"
        }
        return nil
    }

    /// Why the client data hash cannot be signed (it is not a 32-byte SHA-256), or nil.
    public static func clientDataHashProblem(_ parameters: PasskeyParameters) -> String? {
        guard parameters.clientDataHash.count != 32 else { return nil }
        return "the client data hash has \(parameters.clientDataHash.count) bytes; it must be the 32-byte SHA-256 of clientDataJSON"
    }

    /// The assertion of `key` for `relyingParty`: authenticator data with `signCount` and `flags`,
    /// signed with ES256 over authenticatorData ‖ clientDataHash.
    public static func make(
        relyingParty: String, credentialID: [UInt8], userHandle: [UInt8], signCount: UInt32, flags: AuthenticatorFlags,
        clientDataHash: [UInt8], key: P256.Signing.PrivateKey
    ) throws(WebAuthnError) -> PasskeyAssertionCredential {
        let data = AuthenticatorData(relyingParty: relyingParty, flags: flags, signCount: signCount).bytes
        let signature = try ES256.sign(authenticatorData: data, clientDataHash: clientDataHash, with: key)
        return PasskeyAssertionCredential(
            relyingParty: relyingParty, credentialID: credentialID, userHandle: userHandle, authenticatorData: data,
            signature: signature, clientDataHash: clientDataHash)
    }
}
