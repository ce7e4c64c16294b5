public import AutofillCore
internal import FoundationEssentials
internal import Synchronization

/// Answers UI requests from a UI script, in order: automation and tests (`--ui-script FILE`).
///
/// One answer per line; a line starting with `#` is a comment; blank lines are skipped. An answer
/// takes the rest of its line, `#` included (a master password may hold one), so comments go on
/// lines of their own:
///
/// ```
/// # a secret prompt (master password)
/// secret correct horse battery staple
/// # a text prompt; a list: the second item; a yes/no question (or: confirm no)
/// text alice
/// choose 2
/// confirm yes
/// # a message; then cancel whatever is asked next
/// ack
/// cancel
/// ```
///
/// An answer that does not fit the request, or a script that runs out, fails that request with a
/// message naming the script's line (``ScriptedUserInterface/problem``).
public final class ScriptedUserInterface: ProviderUserInterface {
    /// One scripted answer.
    public enum Answer: Hashable, Sendable {
        case secret(Secret), text(String), choose(Int), confirm(Bool), acknowledge, cancel
    }

    private let path: String
    private let state: Mutex<(answers: [(line: Int, answer: Answer)], problem: String?)>

    /// Reads the script at `path`.
    public init(path: String) throws(AutofillError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw AutofillError(.notFound, "cannot read the UI script \(path)")
        }
        self.path = path
        state = Mutex((try Self.parse(String(decoding: data, as: UTF8.self), path: path), nil))
    }

    /// Why the script could not answer, if it could not (for the exit message).
    public var problem: String? { state.withLock { $0.problem } }

    static func parse(_ text: String, path: String) throws(AutofillError) -> [(line: Int, answer: Answer)] {
        var answers: [(line: Int, answer: Answer)] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = index + 1
            let content = String(raw).trimmed
            guard !content.isEmpty, !content.hasPrefix("#") else { continue }
            let word = content.prefix { !$0.isWhitespace }
            let rest = String(content.dropFirst(word.count)).trimmed
            switch word {
            case "secret": answers.append((line, .secret(Secret(rest))))
            case "text": answers.append((line, .text(rest)))
            case "choose":
                guard let number = Int(rest), number >= 1 else {
                    throw AutofillError(.invalidData, "\(path) line \(line): `choose` takes the item's number, from 1 (a comment goes on a line of its own, starting with #)")
                }
                answers.append((line, .choose(number)))
            case "confirm":
                guard rest == "yes" || rest == "no" else {
                    throw AutofillError(.invalidData, "\(path) line \(line): `confirm` takes yes or no (a comment goes on a line of its own, starting with #)")
                }
                answers.append((line, .confirm(rest == "yes")))
            case "ack": answers.append((line, .acknowledge))
            case "cancel": answers.append((line, .cancel))
            default:
                // The word is not repeated: a line missing its `secret ` is the secret itself.
                throw AutofillError(.invalidData, "\(path) line \(line) does not start with an answer word (not shown: it may be a secret); use secret, text, choose, confirm, ack or cancel")
            }
        }
        return answers
    }

    public func present(_ request: UserInterfaceRequest, providerName: String) throws(UserInterfaceError) -> UserInterfaceAnswer {
        let next = state.withLock { $0.answers.isEmpty ? nil : $0.answers.removeFirst() }
        guard let (line, answer) = next else {
            throw fail("\(path) has no answer left for \(providerName)'s \(Self.describe(request))")
        }
        switch (answer, request) {
        case (.cancel, _): throw .canceled
        case (.secret(let value), .prompt(_, _, true, let maxLength)):
            return try text(value, fitting: maxLength, line: line, providerName)
        case (.text(let value), .prompt(_, _, false, let maxLength)):
            return try text(Secret(value), fitting: maxLength, line: line, providerName)
        case (.choose(let number), .choose(_, let items)):
            guard number <= items.count else { throw fail("\(path) line \(line): choose \(number), but \(providerName) offered \(items.count) items") }
            return .choice(number - 1)
        case (.confirm(let yes), .confirm): return .confirmed(yes)
        case (.acknowledge, .message): return .acknowledged
        default:
            throw fail("\(path) line \(line) answers `\(Self.word(answer))`, but \(providerName) asked for \(Self.describe(request))")
        }
    }

    private func text(_ value: Secret, fitting maxLength: Int, line: Int, _ providerName: String) throws(UserInterfaceError)
        -> UserInterfaceAnswer
    {
        guard value.revealed.utf8.count <= maxLength else {
            throw fail("\(path) line \(line): the answer is longer than the \(maxLength) bytes \(providerName) takes")
        }
        return .text(value)
    }

    private func fail(_ message: String) -> UserInterfaceError {
        state.withLock { $0.problem = $0.problem ?? message }
        return .unavailable(message)
    }

    static func describe(_ request: UserInterfaceRequest) -> String {
        switch request {
        case .prompt(let title, _, true, _): "a secret prompt (\"\(title)\")"
        case .prompt(let title, _, false, _): "a text prompt (\"\(title)\")"
        case .choose(let title, _): "a choice (\"\(title)\")"
        case .confirm(let title, _): "a yes/no question (\"\(title)\")"
        case .message(let title, _): "a message (\"\(title)\")"
        }
    }

    static func word(_ answer: Answer) -> String {
        switch answer {
        case .secret: "secret"
        case .text: "text"
        case .choose: "choose"
        case .confirm: "confirm"
        case .acknowledge: "ack"
        case .cancel: "cancel"
        }
    }
}
