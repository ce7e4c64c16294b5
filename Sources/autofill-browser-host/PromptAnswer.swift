import FoundationEssentials

/// The extension's answer to a UI request in its prompt window (docs/BROWSER.md, "The prompt
/// window"): `{"type":"ui-answer","text":…}` (or `choice`, `confirmed`, `acknowledged`, `cancel`),
/// passed on to the command as the one line ``ChannelUserInterface`` reads; anything else cancels.
struct PromptAnswer: Codable {
    var type: String?
    var text: String?
    var choice: Int?
    var confirmed: Bool?
    var acknowledged: Bool?
    var cancel: Bool?

    /// The answer line for the command, from the extension's message `reply`.
    static func line(_ reply: String) -> String {
        guard var answer = try? JSONDecoder().decode(PromptAnswer.self, from: Data(reply.utf8)), answer.type == "ui-answer" else {
            return #"{"cancel":true}"#
        }
        answer.type = nil
        guard let data = try? JSONEncoder().encode(answer) else { return #"{"cancel":true}"# }
        return String(decoding: data, as: UTF8.self)
    }

    /// Whether `message` came over a port the extension keeps open for prompts (`"port":true`): a
    /// one-shot message (`sendNativeMessage`) takes the first message back as its answer, so it cannot.
    static func fromPort(_ message: String) -> Bool {
        struct Marked: Decodable { let port: Bool? }
        return (try? JSONDecoder().decode(Marked.self, from: Data(message.utf8)))?.port == true
    }
}
