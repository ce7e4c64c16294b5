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

/// The host's user authentication, done after a provider answered without showing UI.
public protocol UserAuthenticator: Sendable {
    /// Authenticates the user for `reason` (shown to them, never a secret).
    func authenticate(reason: String) throws(AuthenticationFailure) -> UserAuthentication
}

/// The `none` policy: no authentication at all.
public struct NoUserAuthentication: UserAuthenticator {
    public init() {}

    public func authenticate(reason: String) throws(AuthenticationFailure) -> UserAuthentication {
        UserAuthentication(method: .none, userPresent: false, userVerified: false)
    }
}

/// The `confirm` policy: a yes/no question on the terminal (user presence, not verification).
public struct ConfirmUserAuthentication: UserAuthenticator {
    let ui: any ProviderUserInterface

    public init(ui: any ProviderUserInterface) {
        self.ui = ui
    }

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
