public import AutofillCore
internal import AutofillWebAuthn

/// The host's check that a passkey answer claims no more about the user than was established.
///
/// The provider signs WebAuthn's UP (user present) and UV (user verified) flags; the relying party
/// trusts them. They may say only what the host's authentication established, or what the provider's
/// own UI established in that request (a person's answer at the terminal is presence, a secret
/// answered is verification). A UI script is not a person: an answer it gave is never presence.
public enum PasskeyClaimCheck {
    /// What `credential` (an assertion or a registration) claims beyond `established`, or nil when
    /// nothing (and for other credentials).
    public static func problem(with credential: Credential, established: UserAuthentication) -> String? {
        let flags: AuthenticatorFlags
        switch credential {
        case .passkeyAssertion(let assertion):
            guard assertion.authenticatorData.count > 32 else { return nil }  // PasskeyResultCheck names that
            flags = AuthenticatorFlags(rawValue: assertion.authenticatorData[32])
        case .passkeyRegistration(let registration):
            guard let data = try? AttestationObject.parse(registration.attestationObject).authenticatorData else { return nil }
            flags = data.flags
        default:
            return nil
        }
        if flags.contains(.userPresent) && !established.userPresent {
            return "authenticator data that says the user was present (UP), but no person answered: a UI script is not a person"
        }
        if flags.contains(.userVerified) && !established.userVerified {
            return "authenticator data that says the user was verified (UV), but nobody verified them"
        }
        return nil
    }
}
