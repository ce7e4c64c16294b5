public import AutofillCore

// Provider text as it enters the host: every string a provider sends that the user may read
// (a reason, a title, a prompt, an item) goes through ``DisplayText`` here, once, in
// ``ProviderSession`` (which both transports reach), so nothing downstream (the router's
// messages, the terminal, `--trace`, the log) ever holds a provider's raw control characters.

extension ExtensionError {
    /// The error with its failure reason made one safe line (``DisplayText/line(_:limit:alreadyCut:)``);
    /// an empty reason becomes none.
    public var displaySafe: ExtensionError {
        ExtensionError(code, failureReason: failureReason.flatMap { $0.isEmpty ? nil : DisplayText.line($0) })
    }
}

extension UserInterfaceRequest {
    /// The request with every text made safe to show: titles, prompts, questions and list items as
    /// one line each, a message (`ui_message`) as at most ``DisplayText/textLineLimit`` lines.
    public var displaySafe: UserInterfaceRequest {
        switch self {
        case .prompt(let title, let message, let secret, let maxLength):
            .prompt(title: DisplayText.line(title), message: DisplayText.line(message), secret: secret, maxLength: maxLength)
        case .choose(let title, let items):
            .choose(title: DisplayText.line(title), items: items.map { DisplayText.line($0) })
        case .confirm(let title, let message):
            .confirm(title: DisplayText.line(title), message: DisplayText.line(message))
        case .message(let title, let message):
            .message(title: DisplayText.line(title), message: DisplayText.text(message))
        }
    }
}

extension Credential {
    /// "password" or "one-time code" when the credential's secret is empty, which would fill
    /// nothing (the host fails such a completion, naming the provider); nil otherwise.
    var missingSecret: String? {
        switch self {
        case .password(let credential) where credential.password.isEmpty: "password"
        case .oneTimeCode(let code) where code.isEmpty: "one-time code"
        case .generatedPassword(let password) where password.isEmpty: "generated password"
        default: nil
        }
    }
}
