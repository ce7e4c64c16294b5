public import AutofillCore

/// The host's checks of what a passkey provider answered, before anything reaches the caller.
///
/// A relying party would reject most of these answers anyway; checking here names the provider at
/// fault instead of handing the caller a credential that fails somewhere else.
public enum PasskeyResultCheck {
    /// What is wrong with `credential` as the answer to `request`, or nil when nothing is (and for
    /// requests that are not passkey assertions).
    public static func problem(with credential: Credential, for request: CredentialRequest) -> String? {
        guard case .passkeyAssertion(let identity, let parameters) = request else { return nil }
        guard case .passkeyAssertion(let assertion) = credential else { return "a \(credential.kind) to a passkey request" }
        return problem(with: assertion, parameters: parameters, expectedCredential: identity.credentialID)
    }

    /// What is wrong with a passkey assertion for `parameters`, or nil.
    public static func problem(with assertion: PasskeyAssertionCredential, parameters: PasskeyParameters,
                               expectedCredential: [UInt8]?) -> String? {
        if assertion.relyingParty != parameters.relyingParty {
            return "an assertion for another relying party (\(assertion.relyingParty), not \(parameters.relyingParty))"
        }
        if assertion.clientDataHash != parameters.clientDataHash {
            return "an assertion over another client data hash"
        }
        if let expectedCredential, assertion.credentialID != expectedCredential {
            return "an assertion by another credential than the one picked"
        }
        if !parameters.credentialIDs.isEmpty && !parameters.credentialIDs.contains(assertion.credentialID) {
            return "an assertion by a credential the relying party did not allow"
        }
        if let problem = authenticatorDataProblem(assertion.authenticatorData, relyingParty: parameters.relyingParty,
                                                  userVerification: parameters.userVerification) {
            return problem
        }
        if assertion.signature.isEmpty { return "an assertion without a signature" }
        return nil
    }

    /// Checks the fixed part of authenticator data: length, rpIdHash, and UV when required.
    static func authenticatorDataProblem(_ data: [UInt8], relyingParty: String, userVerification: UserVerificationPreference) -> String? {
        guard data.count >= 37 else { return "authenticator data of \(data.count) bytes (at least 37 expected)" }
        guard Array(data[0..<32]) == PasskeyCeremony.sha256(Array(relyingParty.utf8)) else {
            return "authenticator data for another relying party (its rpIdHash is not SHA-256 of \(relyingParty))"
        }
        if userVerification == .required && data[32] & 0x04 == 0 {
            return "authenticator data without user verification (UV), which the relying party requires"
        }
        return nil
    }
}

extension PasskeyResultCheck {
    /// What is wrong with `credential` as the answer to `request`, or nil: assertions (a sign-in, or
    /// one picked from a passkey provider's list, where a password is an answer too) and registrations
    /// (``PasskeyRegistrationCheck``); nil for every other request.
    public static func problem(with credential: Credential, for request: ProviderRequest) -> String? {
        switch request {
        case .credentialWithoutUserInteraction(let request), .interfaceToProvideCredential(let request):
            return problem(with: credential, for: request)
        case .passkeyCredentialList(_, let parameters):
            guard case .passkeyAssertion(let assertion) = credential else { return nil }
            return problem(with: assertion, parameters: parameters, expectedCredential: nil)
        case .passkeyRegistration(let request), .conditionalPasskeyRegistration(let request):
            return PasskeyRegistrationCheck.problem(with: credential, for: request)
        default:
            return nil
        }
    }
}
