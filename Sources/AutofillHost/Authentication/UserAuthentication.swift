public import AutofillCore

/// What the host did to authenticate the user before filling: recorded with every credential so
/// a passkey can set WebAuthn's UP and UV flags honestly.
public struct UserAuthentication: Hashable, Sendable, Codable {
    /// How the user was authenticated.
    public enum Method: String, Hashable, Sendable, Codable {
        /// The current Linux user authenticated through PAM (user verification).
        case pam
        /// The user answered yes on the terminal (user presence only).
        case confirm
        /// Nothing: the `none` policy (scripting), which the README warns about.
        case none
        /// The provider showed its own UI (for example the master password); the host did not ask again.
        case provider
    }

    public var method: Method
    /// Someone was there and agreed (WebAuthn UP).
    public var userPresent: Bool
    /// The user proved who they are (WebAuthn UV).
    public var userVerified: Bool

    public init(method: Method, userPresent: Bool, userVerified: Bool) {
        self.method = method
        self.userPresent = userPresent
        self.userVerified = userVerified
    }

    /// What this established, as a policy measures it.
    public var level: AuthenticationLevel {
        userVerified ? .verification : userPresent ? .presence : .nothing
    }

    /// Both together: `other`'s method (the later step), and each flag set if either set it.
    public func combined(with other: UserAuthentication) -> UserAuthentication {
        UserAuthentication(method: other.method, userPresent: userPresent || other.userPresent,
                           userVerified: userVerified || other.userVerified)
    }
}

/// How much was established about the user, in the order a policy asks for it.
///
/// `none` asks for ``nothing``, `confirm` for ``presence`` (a person answered at the terminal),
/// `pam` for ``verification`` (PAM accepted the user, or the provider's own UI took a secret such
/// as a master password). Verification satisfies a policy that asks for presence.
public enum AuthenticationLevel: Int, Comparable, Sendable {
    case nothing, presence, verification

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Why the host could not authenticate the user.
public enum AuthenticationFailure: Error, Hashable, Sendable {
    /// The user could not be authenticated (wrong password, answered no); the message says how.
    case denied(String)
    /// The user cancelled.
    case canceled
    /// No way to ask (no terminal, no UI script).
    case unavailable(String)
}

/// The host's user authentication (the `UserAuthentication` policy), applied on every path that
/// hands out a secret unless the provider's own UI already established as much.
///
/// Implementation requirements: the host's own questions (a yes/no, PAM's conversation) go to the
/// controlling terminal only, never to a UI script: a script answering them would make the policy
/// scriptable. Report only what was established.
public protocol UserAuthenticator: Sendable {
    /// What the policy asks for before a secret is handed out.
    var required: AuthenticationLevel { get }
    /// Authenticates the user for `reason` (shown to them, never a secret).
    func authenticate(reason: String) throws(AuthenticationFailure) -> UserAuthentication
}

/// The `none` policy: no authentication at all.
public struct NoUserAuthentication: UserAuthenticator {
    public init() {}

    public var required: AuthenticationLevel { .nothing }

    public func authenticate(reason: String) throws(AuthenticationFailure) -> UserAuthentication {
        UserAuthentication(method: .none, userPresent: false, userVerified: false)
    }
}

/// The `confirm` policy: a yes/no question on the terminal (user presence, not verification).
/// `ui` must be the controlling terminal (``HostPrompts``), never a UI script.
public struct ConfirmUserAuthentication: UserAuthenticator {
    let ui: any ProviderUserInterface

    public init(ui: any ProviderUserInterface) {
        self.ui = ui
    }

    public var required: AuthenticationLevel { .presence }

    public func authenticate(reason: String) throws(AuthenticationFailure) -> UserAuthentication {
        do {
            guard case .confirmed(true) = try ui.present(.confirm(title: "Confirm", message: reason), providerName: "autofill") else {
                throw AuthenticationFailure.denied("you answered no")
            }
            return UserAuthentication(method: .confirm, userPresent: true, userVerified: false)
        } catch let failure as AuthenticationFailure {
            throw failure
        } catch UserInterfaceError.canceled {
            throw .canceled
        } catch UserInterfaceError.unavailable(let why) {
            throw .unavailable(why)
        } catch {
            throw .denied("\(error)")
        }
    }
}
