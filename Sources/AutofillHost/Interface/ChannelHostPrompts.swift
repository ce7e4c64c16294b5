public import AutofillCore

/// Where autofill's own authentication asks under `--ui-channel` (the browser's prompt window,
/// docs/BROWSER.md): PAM's conversation and the `confirm` policy's yes/no go to the channel, marked as
/// autofill's own (``ChannelUserInterface/presentAuthentication(_:)``), so the window frames them as
/// the terminal does. PAM checks what is typed there; a yes there is what a yes at the terminal is
/// (`confirm` guards against accidents, not against programs of the user, which could answer it
/// through a pseudo-terminal as well: docs/AGENT.md).
public struct ChannelHostPrompts: ProviderUserInterface {
    let channel: ChannelUserInterface

    public init(channel: ChannelUserInterface) {
        self.channel = channel
    }

    public func present(_ request: UserInterfaceRequest, providerName: String) throws(UserInterfaceError) -> UserInterfaceAnswer {
        try channel.presentAuthentication(request)
    }
}
