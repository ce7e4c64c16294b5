public import AutofillCore
public import Logging

/// What the host offers one provider: its own identity store, its settings, the UI, a log.
public struct ProviderServices: Sendable {
    /// The provider's own identity store.
    public var store: any CredentialIdentityStore
    /// The provider's settings from the host configuration (`ProviderSettings`).
    public var settings: [String: String]
    /// Who renders the provider's UI requests.
    public var userInterface: any ProviderUserInterface
    /// Where the provider's log lines go.
    public var logger: Logger
    /// How long a UI request may sit idle, its entry point returned and no UI showing, before the
    /// host gives up on it (`UIIdleTimeoutSeconds`; see ``ProviderSession``).
    public var userInterfaceIdleTimeout: Duration
    /// The folders the provider declared with `add-files` Access, where the host writes for it (`add_file`).
    public var fileWriter: FileGrantWriter = .none

    /// Creates the services.
    public init(
        store: any CredentialIdentityStore, settings: [String: String] = [:],
        userInterface: any ProviderUserInterface = UnavailableUserInterface(), logger: Logger,
        userInterfaceIdleTimeout: Duration = HostConfiguration.defaultUIIdleTimeout
    ) {
        self.store = store
        self.settings = settings
        self.userInterface = userInterface
        self.logger = logger
        self.userInterfaceIdleTimeout = userInterfaceIdleTimeout
    }
}

/// A UI that can show nothing: every request fails as unavailable with a reason.
public struct UnavailableUserInterface: ProviderUserInterface {
    /// Why no UI can be shown.
    public var reason: String

    /// Creates the UI with the reason users will read.
    public init(reason: String = "no UI is available here") {
        self.reason = reason
    }

    public func present(_ request: UserInterfaceRequest, providerName: String) throws(UserInterfaceError)
        -> UserInterfaceAnswer
    {
        throw .unavailable(reason)
    }
}
