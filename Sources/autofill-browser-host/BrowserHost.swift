import FoundationEssentials

/// Answers the extension's requests by running `autofill suggest` and `autofill fill` as any client
/// of the agent does: the host has no authority of its own (docs/AGENT.md), and the agent takes the
/// policy from the user's configuration, never from the request. Suggestions carry positions, user
/// names and provider names; a secret leaves the host only in the answer to a `fill`, which the
/// extension sends after the user picked.
struct BrowserHost {
    /// The host's answer to one request.
    struct Answer: Encodable {
        struct Suggestion: Encodable, Equatable {
            let position: Int
            let user: String
            let provider: String
            let kind: String
        }

        var ok: Bool
        var error: String?
        var suggestions: [Suggestion]?
        var user: String?
        var password: String?
        var code: String?
        /// A passkey's PublicKeyCredential (`toJSON()`: base64url members), as JSON text.
        var credential: String?

        static func refused(_ reason: String) -> Answer { Answer(ok: false, error: reason) }
    }

    /// The most suggestions the list shows.
    static let suggestionLimit = 20

    let environment: [String: String]
    /// The prompt window (docs/BROWSER.md): sends a UI request line of the command's
    /// (``ChannelUserInterface``) to the extension and returns its answer line; nil when the extension
    /// cannot answer (it asked with a one-shot message). Only `fill`, `generate` and `save`, which follow
    /// the user's pick, may ask.
    var prompt: ((String) -> String?)? = nil

    /// The answer to `text` (one message from the extension), as JSON.
    func answer(_ text: String, canPrompt: Bool = false) -> String {
        let answer: Answer
        do {
            var host = self
            if !canPrompt { host.prompt = nil }
            if let passkey = try? JSONDecoder().decode(PasskeyRequest.self, from: Data(text.utf8)) {
                return Self.encode(host.handle(passkey))
            }
            let request = try JSONDecoder().decode(BrowserRequest.self, from: Data(text.utf8))
            answer = request.problem.map { Answer.refused($0) } ?? host.handle(request)
        } catch {
            answer = .refused("the message is not a request this host knows (docs/BROWSER.md)")
        }
        return Self.encode(answer)
    }

    static func encode(_ answer: Answer) -> String {
        guard let data = try? JSONEncoder().encode(answer) else { return #"{"ok":false,"error":"the answer could not be encoded"}"# }
        return String(decoding: data, as: UTF8.self)
    }

    private func handle(_ request: BrowserRequest) -> Answer {
        // The origin with a slash: a URL whose host and port the matching rules read (docs/MATCHING.md).
        let site = request.origin + "/"
        switch request.type {
        case .suggest:
            let run = CommandRun.run(["suggest", site, "--type", request.kind.rawValue, "--limit", "\(Self.suggestionLimit)", "--json"],
                                     environment: environment)
            guard run.status == 0 else { return .refused(Self.failure(run)) }
            guard let output = try? JSONDecoder().decode(SuggestOutput.self, from: Data(run.output)) else {
                return .refused("autofill suggest printed something the host cannot read")
            }
            var answer = Answer(ok: true)
            answer.suggestions = output.suggestions.map {
                Answer.Suggestion(position: $0.position, user: $0.user, provider: $0.provider.displayName, kind: $0.kind)
            }
            return answer
        case .fill:
            guard let position = request.position, let user = request.user else { return .refused("fill needs a position and a user") }
            let run = CommandRun.run(["fill", site, "--type", request.kind.rawValue, "--pick", "\(position)", "--format", "json"] + uiOption,
                                     environment: environment, ui: prompt)
            guard run.status == 0 else { return .refused(Self.failure(run)) }
            guard let output = try? JSONDecoder().decode(FillOutput.self, from: Data(run.output)) else {
                return .refused("autofill fill printed something the host cannot read")
            }
            // The stores may have changed since the list was shown: the secret goes only to the user picked.
            guard (output.user ?? "") == user else {
                return .refused("the suggestions changed since the list was shown; focus the field again to see them")
            }
            var answer = Answer(ok: true)
            answer.user = output.user
            answer.password = output.password
            answer.code = output.code
            return answer
        case .generate:
            // `--rules=VALUE` in one argument: rules that start with "-" stay a value.
            let rules = request.rules.flatMap { $0.allSatisfy(\.isWhitespace) ? nil : $0 }
            let run = CommandRun.run(["generate", "--for", site] + (rules.map { ["--rules=\($0)"] } ?? []) + uiOption,
                                     environment: environment, ui: prompt)
            guard run.status == 0 else { return .refused(Self.failure(run)) }
            var printed = String(decoding: run.output, as: UTF8.self)
            if printed.hasSuffix("\n") { printed.removeLast() }
            guard !printed.isEmpty, !printed.contains(where: \.isNewline) else { return .refused("autofill generate printed no password") }
            let password = printed
            var answer = Answer(ok: true)
            answer.password = password
            return answer
        case .save:
            guard let user = request.user, let password = request.password else { return .refused("save needs a user and a password") }
            // `--user=NAME` in one argument: a name that starts with "-" stays a name.
            let run = CommandRun.run(["save", site, "--user=\(user)"], environment: environment, input: Array((password + "\n").utf8))
            guard run.status == 0 else { return .refused(Self.failure(run)) }
            return Answer(ok: true)
        }
    }

    /// `--ui-channel` when the extension can answer a prompt.
    var uiOption: [String] { prompt == nil ? [] : ["--ui-channel"] }

    /// What the extension is told when a command failed: its exit status and its first error line
    /// (autofill's error text names what went wrong and never holds a secret).
    static func failure(_ run: CommandRun) -> String {
        let line = run.errorText.split(separator: "\n").first { !$0.hasPrefix("autofill: warning") } ?? ""
        return "autofill exited \(run.status)" + (line.isEmpty ? "" : ": " + line.prefix(300))
    }
}
