public import AutofillCore
internal import AutofillWebAuthn

/// The host's checks of a passkey registration a provider answered with.
public enum PasskeyRegistrationCheck {
    /// What is wrong with `credential` as the answer to `request`, or nil.
    ///
    /// Checked: the relying party and client data hash are the request's; the attestation object
    /// parses, its authenticator data is for the relying party (rpIdHash), has attested credential
    /// data for the credential id given, a public key of an algorithm the relying party offered,
    /// and UV when the relying party requires it; the new credential is not an excluded one.
    public static func problem(with credential: Credential, for request: PasskeyRegistrationRequest) -> String? {
        guard case .passkeyRegistration(let registration) = credential else { return "a \(credential.kind) to a registration request" }
        let parameters = request.parameters
        if registration.relyingParty != parameters.relyingParty {
            return "a passkey for another relying party (\(registration.relyingParty), not \(parameters.relyingParty))"
        }
        if registration.clientDataHash != parameters.clientDataHash { return "a registration over another client data hash" }
        let data: AuthenticatorData
        do {
            data = try AttestationObject.parse(registration.attestationObject).authenticatorData
        } catch {
            return "a malformed attestation object (\(error))"
        }
        guard data.rpIDHash == PasskeyCeremony.sha256(Array(parameters.relyingParty.utf8)) else {
            return "authenticator data for another relying party (its rpIdHash is not SHA-256 of \(parameters.relyingParty))"
        }
        guard let attested = data.attestedCredential, attested.credentialID == registration.credentialID else {
            return "authenticator data whose credential id is not the one it reported"
        }
        if parameters.credentialIDs.contains(registration.credentialID) {
            return "a new passkey whose id the relying party excluded"
        }
        let algorithm: Int
        do {
            algorithm = try COSEKey.algorithm(of: attested.publicKey)
        } catch {
            return "a malformed public key (\(error))"
        }
        if !parameters.algorithms.isEmpty && !parameters.algorithms.contains(algorithm) {
            return "a key of algorithm \(algorithm), which the relying party did not offer (\(parameters.algorithms.map(String.init).joined(separator: ", ")))"
        }
        if parameters.userVerification == .required && !data.flags.contains(.userVerified) {
            return "authenticator data without user verification (UV), which the relying party requires"
        }
        return nil
    }
}
