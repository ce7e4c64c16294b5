public import AutofillCore

/// Where autofill's own authentication asks under `--ui-channel` (the browser's prompt window,
/// docs/BROWSER.md): PAM's conversation goes to the channel, marked as autofill's own
/// (``ChannelUserInterface/presentAuthentication(_:)``), because whatever answers there must know
/// the user's password: a program relaying the question gains nothing. The `confirm` policy's yes/no
/// is refused: any program of the user can start the browser's host and answer it, so it would
/// prove nobody's presence.
public struct ChannelHostPrompts: ProviderUserInterface {
    /// Why `confirm` is not asked in the prompt window, and what to do.
    public static let confirmRefused = """
        the UserAuthentication policy confirm is not asked in the browser's prompt window (any program of yours \
        could answer a yes/no there); choose the policy pam for fills in the browser (docs/BROWSER.md)
        """

    let channel: ChannelUserInterface

    public init(channel: ChannelUserInterface) {
        self.channel = channel
    }

    public func present(_ request: UserInterfaceRequest, providerName: String) throws(UserInterfaceError) -> UserInterfaceAnswer {
        if case .confirm = request { throw .unavailable(Self.confirmRefused) }
        return try channel.presentAuthentication(request)
    }
}
