/// A piece of UI a provider asks the host to show (providers never own the terminal).
public enum UserInterfaceRequest: Hashable, Sendable {
    /// Ask for a line of text; with `secret` it is not echoed. Answers longer than
    /// `maxLength` bytes are refused at the prompt.
    case prompt(title: String, message: String, secret: Bool, maxLength: Int)
    /// Choose one of `items`.
    case choose(title: String, items: [String])
    /// Ask yes or no.
    case confirm(title: String, message: String)
    /// Show a message until the user acknowledges it.
    case message(title: String, message: String)
}

/// The user's answer to a ``UserInterfaceRequest``.
public enum UserInterfaceAnswer: Hashable, Sendable {
    /// The text typed at a prompt (a secret when the prompt was secret).
    case text(Secret)
    /// The index of the chosen item.
    case choice(Int)
    /// Yes (true) or no (false).
    case confirmed(Bool)
    /// The message was acknowledged.
    case acknowledged
}

/// Why a ``UserInterfaceRequest`` got no answer.
public enum UserInterfaceError: Error, Hashable, Sendable {
    /// The user cancelled.
    case canceled
    /// No UI can be shown (a no-UI request, or no terminal and no UI script); the reason says which.
    case unavailable(String)
}

/// Who shows providers' UI: the host's terminal, a UI script, or nothing.
public protocol ProviderUserInterface: Sendable {
    /// Shows `request` on behalf of the provider named `providerName` and returns the answer.
    /// Called on a provider's thread; may block until the user answers.
    func present(_ request: UserInterfaceRequest, providerName: String) throws(UserInterfaceError)
        -> UserInterfaceAnswer

    /// Whether a person gives the answers (the controlling terminal), rather than a file or
    /// program (a UI script). Only a person's answer establishes that the user was present.
    var answersComeFromAPerson: Bool { get }
}

extension ProviderUserInterface {
    /// By default, not a person: a UI has to say it is one.
    public var answersComeFromAPerson: Bool { false }
}
