public import AutofillCore
package import AutofillWire
internal import FoundationEssentials

/// Providers' UI (and the host's own prompts) rendered on the controlling terminal.
///
/// Every request can be cancelled: Ctrl-D at any prompt, or `q` where a choice is asked.
/// Secrets are read without echo. Answers longer than the provider can take are refused at the
/// prompt, so nothing is ever cut short.
public final class TerminalUserInterface: ProviderUserInterface {
    private let terminal: Terminal
    /// Whether the host's prompts get their reverse-video mark (``attributes(_:)``), decided by the
    /// environment of the client it was opened for.
    private let attributes: Bool
    /// The command's progress line, erased while a request is on the terminal.
    private let progress: ProgressLine?

    /// The terminal UI, or nil when the process has no controlling terminal (for a request the agent
    /// serves: when its client passed none). The progress line of the work it interrupts
    /// (``ProgressLine/current``) is erased while it asks something.
    public static func open() -> TerminalUserInterface? { open(progress: nil) }

    /// ``open()`` with the command's progress line.
    package static func open(progress: ProgressLine?) -> TerminalUserInterface? {
        Terminal.open().map { TerminalUserInterface(terminal: $0, attributes: attributes(ClientContext.current.environment), progress: progress) }
    }

    private init(terminal: Terminal, attributes: Bool, progress: ProgressLine?) {
        self.terminal = terminal
        self.attributes = attributes
        self.progress = progress
    }

    /// A person at the terminal answers.
    public var answersComeFromAPerson: Bool { true }

    public func present(_ request: UserInterfaceRequest, providerName: String) throws(UserInterfaceError) -> UserInterfaceAnswer {
        // The command's line, else the one of the work this question interrupts (``ProgressLine/current``).
        guard let progress = progress ?? ProgressLine.current else { return try presentNow(request, providerName: providerName) }
        return try progress.interacting { () throws(UserInterfaceError) in try presentNow(request, providerName: providerName) }
    }

    private func presentNow(_ request: UserInterfaceRequest, providerName: String) throws(UserInterfaceError) -> UserInterfaceAnswer {
        let frame = PromptFrame(owner: providerName, columns: terminal.columns, attributes: attributes)
        switch request {
        case .prompt(let title, let message, let secret, let maxLength):
            terminal.write(frame.header(title))
            while true {
                guard let line = terminal.readLine(after: frame.question(Self.prompt(message)), echo: !secret) else { throw .canceled }
                guard line.count <= maxLength else {
                    terminal.write(frame.lines("That is \(line.count) bytes; this takes at most \(maxLength). Try again (Ctrl-D cancels)."))
                    continue
                }
                guard let text = String(validating: line, as: UTF8.self) else {
                    terminal.write(frame.lines("That is not valid UTF-8. Try again (Ctrl-D cancels)."))
                    continue
                }
                return .text(Secret(text))
            }
        case .choose(let title, let items):
            terminal.write(frame.header(title))
            for (index, item) in items.enumerated() {
                terminal.write(frame.lines("  \(index + 1). \(DisplayText.escaped(item, keepingNewlines: false))"))
            }
            while true {
                guard let line = terminal.readLine(after: frame.question("Choose 1–\(items.count) (q cancels):"), echo: true) else { throw .canceled }
                let answer = String(decoding: line, as: UTF8.self).trimmed
                if answer == "q" { throw .canceled }
                if let number = Int(answer), (1...items.count).contains(number) { return .choice(number - 1) }
                terminal.write(frame.lines("Type a number from 1 to \(items.count), or q."))
            }
        case .confirm(let title, let message):
            terminal.write(frame.header(title))
            while true {
                guard let line = terminal.readLine(after: frame.question("\(Self.printable(message)) [y/n, q cancels]:"), echo: true) else { throw .canceled }
                switch String(decoding: line, as: UTF8.self).trimmed.lowercased() {
                case "y", "yes": return .confirmed(true)
                case "n", "no": return .confirmed(false)
                case "q": throw .canceled
                default: terminal.write(frame.lines("Type y or n (q cancels)."))
                }
            }
        case .message(let title, let message):
            terminal.write(frame.header(title))
            terminal.write(frame.lines(Self.printable(message)))
            guard let line = terminal.readLine(after: frame.question("Press Enter to continue (q cancels):"), echo: true) else { throw .canceled }
            if String(decoding: line, as: UTF8.self).trimmed == "q" { throw .canceled }
            return .acknowledged
        }
    }

    /// The provider's message as a prompt: "Master password:" (a sentence's final '.' or ':' becomes ':').
    static func prompt(_ message: String) -> String {
        var text = printable(message.isEmpty ? "Answer" : message).trimmed
        while let last = text.last, last == "." || last == ":" { text.removeLast() }
        return text + ":"
    }

    /// Whether the host's own prompts get their reverse-video mark: not with `NO_COLOR` or `TERM=dumb`
    /// (the line-start rule alone then tells them apart).
    static func attributes(_ environment: [String: String]) -> Bool {
        environment["NO_COLOR"] == nil && environment["TERM"] != "dumb" && environment["TERM"] != nil
    }

    /// Text from a provider with control characters, escape sequences and bidi controls shown
    /// escaped (``DisplayText``), so it cannot move the cursor, clear the screen or fake another
    /// prompt. The session made it safe already; this is the second line of defence.
    static func printable(_ text: String) -> String {
        DisplayText.escaped(text, keepingNewlines: true)
    }
}

extension String {
    var trimmed: String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}
