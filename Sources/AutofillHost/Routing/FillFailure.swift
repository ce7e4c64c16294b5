/// Why nothing was filled. Each maps to one exit status (``ExitStatus``, the one table).
public enum FillFailure: Error, Sendable, CustomStringConvertible {
    /// Nothing to offer (no suggestion, no provider with the capability).
    case nothingToFill(String)
    /// The user cancelled (at a provider's UI or the host's).
    case canceled(String)
    /// A UI was needed and none is available (no terminal, no UI script).
    case userInterfaceUnavailable(String)
    /// The host could not authenticate the user.
    case authenticationFailed(String)
    /// The host's own authentication needed the controlling terminal and there is none (a UI
    /// script never answers it).
    case authenticationUnavailable(String)
    /// Every candidate tried failed; the messages name each provider.
    case providersFailed([String])
    /// Passkey registration: the provider already holds one of the relying party's excluded
    /// credentials (`matchedExcludedCredential`); nothing was created.
    case excludedCredential(String)
    /// Conditional passkey registration: no provider accepted. Quiet by design; the reasons (one per
    /// provider) are for `--trace`, not an error screen.
    case declined([String])
    /// Every candidate tried was refused before its provider ran (changed files, unsafe permissions,
    /// quarantine); the messages say why and what to do.
    case providersRefused([String])

    public var description: String {
        switch self {
        case .nothingToFill(let message), .canceled(let message), .userInterfaceUnavailable(let message),
            .authenticationFailed(let message), .authenticationUnavailable(let message), .excludedCredential(let message):
            message
        case .providersFailed(let messages), .declined(let messages), .providersRefused(let messages): messages.joined(separator: "\n")
        }
    }
}
