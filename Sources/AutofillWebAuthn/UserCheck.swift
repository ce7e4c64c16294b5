public import AutofillCore

/// What was established about the user for one passkey answer: WebAuthn's UP and UV flags.
///
/// Never from nothing: from the host's authentication (`hostUserPresent`/`hostUserVerified`), or
/// from the provider's own UI (a master password typed is verification, a yes to a confirmation or a
/// choice in a list is presence).
public struct UserCheck: Equatable, Sendable {
    public var present: Bool
    public var verified: Bool

    public init(present: Bool, verified: Bool) {
        self.present = present
        self.verified = verified
    }

    /// What the host established before the request.
    public static func host(_ parameters: PasskeyParameters) -> UserCheck {
        UserCheck(present: parameters.hostUserPresent, verified: parameters.hostUserVerified)
    }

    /// A master password was typed during this request.
    public static let masterPassword = UserCheck(present: true, verified: true)
    /// Nobody was asked (conditional registration).
    public static let nobody = UserCheck(present: false, verified: false)

    /// What may be claimed for `parameters`: when the host's UI is not a person (a UI script answers,
    /// `hostUserInterfaceScripted`), answers to the provider's own UI are no presence, so UP comes
    /// from the host alone; a master password answered still verifies.
    public func honest(for parameters: PasskeyParameters) -> UserCheck {
        parameters.hostUserInterfaceScripted ? UserCheck(present: parameters.hostUserPresent, verified: verified) : self
    }

    /// The authenticator flags for this check: UP and UV as established, plus `backup`.
    public func flags(backup: AuthenticatorFlags) -> AuthenticatorFlags {
        var flags = backup
        if present { flags.insert(.userPresent) }
        if verified { flags.insert(.userVerified) }
        return flags
    }
}
