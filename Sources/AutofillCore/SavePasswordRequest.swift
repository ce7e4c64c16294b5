/// A request to save a password (`ASSavePasswordRequest`): add a login, or update the password of
/// the one the provider holds for the same service and user.
public struct SavePasswordRequest: Hashable, Sendable, CustomStringConvertible {
    /// Why the host asks (`ASSavePasswordRequest.Event`).
    public enum Event: Int32, Hashable, Sendable {
        /// The user asked (`autofill save`).
        case userInitiated = 0
        /// A sign-in form was submitted.
        case formDidDisappear = 1
        /// A generated password was filled.
        case generatedPasswordFilled = 2
    }

    /// The site, in the most specific form the user gave.
    public var serviceIdentifier: ServiceIdentifier
    /// The user name and the password; the password prints as `<REDACTED>`.
    public var credential: PasswordCredential
    /// A title for a new entry, if any.
    public var title: String?
    /// Why the host asks.
    public var event: Event

    /// Creates a save request.
    public init(serviceIdentifier: ServiceIdentifier, credential: PasswordCredential, title: String? = nil,
                event: Event = .userInitiated) {
        self.serviceIdentifier = serviceIdentifier
        self.credential = credential
        self.title = title
        self.event = event
    }

    public var description: String {
        "SavePasswordRequest(service: \(serviceIdentifier.identifier), user: \(credential.user), password: <REDACTED>)"
    }
}

/// A request to generate a password (`ASGeneratePasswordsRequest`) that honours a site's rules.
public struct GeneratePasswordRequest: Hashable, Sendable {
    /// The site the password is for.
    public var serviceIdentifier: ServiceIdentifier
    /// The site's rules in Apple's passwordrules syntax, or nil for the provider's defaults.
    public var passwordRules: String?

    /// Creates a generate request.
    public init(serviceIdentifier: ServiceIdentifier, passwordRules: String? = nil) {
        self.serviceIdentifier = serviceIdentifier
        self.passwordRules = passwordRules
    }
}
