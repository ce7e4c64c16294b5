public import AutofillCore

/// A credential the user got, with who gave it and how the user was authenticated.
public struct FillResult: Sendable {
    public var credential: Credential
    public var providerID: String
    public var providerName: String
    /// The suggestion picked, or nil when the credential came from a provider's own list.
    public var suggestion: Suggestion?
    public var authentication: UserAuthentication
}
