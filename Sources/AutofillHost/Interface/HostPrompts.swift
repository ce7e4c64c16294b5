public import AutofillCore

/// Where the host's own authentication asks its questions (the `confirm` yes/no, PAM's
/// conversation): the controlling terminal, and nothing else; under `--ui-channel` PAM's
/// conversation only goes to the browser's prompt window instead (``ChannelHostPrompts``).
///
/// A UI script answers providers' prompts and the host's lists, never these: if a file could say
/// "yes", any script running as the user could take every secret the host guards. Unattended use
/// is chosen on purpose in the configuration (the `none` policy, or a PAM service that asks
/// nothing), not by a command-line switch.
public enum HostPrompts {
    /// Why the host cannot ask without a terminal, and what to do.
    public static let noTerminal = """
        autofill's own confirmation needs you at the controlling terminal (a UI script answers providers' \
        prompts and lists, never autofill's own questions); for unattended use, choose the UserAuthentication \
        policy none on purpose, or pam with a service that asks nothing (docs/CONFIGURATION.md)
        """

    /// The controlling terminal, or a UI that refuses every request with ``noTerminal``.
    public static func open() -> any ProviderUserInterface {
        TerminalUserInterface.open() ?? UnavailableUserInterface(reason: noTerminal)
    }
}
