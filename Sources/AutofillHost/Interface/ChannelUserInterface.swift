public import AutofillCore
internal import AutofillSystem
internal import FoundationEssentials
internal import Synchronization

/// Providers' UI (``UserInterfaceRequest``) carried as JSON lines over a socket on the command's
/// standard input (`--ui-channel`), for a client that has no terminal but a window of its own: the
/// browser's native host (docs/BROWSER.md, "The prompt window"). The same requests and answers as the
/// terminal's and a UI script's, one object a line each way:
///
/// ```
/// → {"owner":"Vault (org.autofill.vault)","kind":"prompt","title":"Unlock","message":"Master password","secret":true,"maxLength":1024}
/// ← {"text":"…"}   {"choice":0}   {"confirmed":true}   {"acknowledged":true}   {"cancel":true}
/// ```
///
/// `owner` is "autofill" for the host's own lists and the provider's "Name (id)" otherwise, as the
/// terminal frames them (``PromptFrame``). Whatever is at the other end is a program, not a
/// verified person: its answers to a provider's questions never establish presence (as a UI
/// script's). The host's own authentication comes here marked `"authentication":true`
/// (``ChannelHostPrompts``): PAM's conversation, which PAM checks, and the `confirm` policy's yes/no,
/// which is what a yes at the terminal is (an accident's guard, docs/AGENT.md).
public final class ChannelUserInterface: ProviderUserInterface {
    private struct Request: Encodable {
        let owner: String
        let kind: String
        var title: String
        var message: String?
        var secret: Bool?
        var maxLength: Int?
        var items: [String]?
        var authentication: Bool?
    }

    private struct Answer: Decodable {
        let text: String?
        let choice: Int?
        let confirmed: Bool?
        let acknowledged: Bool?
        let cancel: Bool?
    }

    /// The longest answer line read (a secret is at most a provider's maxLength; JSON escapes it).
    static let maximumLineBytes = 64 * 1024

    private let descriptor: Int32
    /// One question at a time on the channel.
    private let lock = Mutex(())

    /// The channel on `descriptor` (the client's standard input), or nil when it is not a socket
    /// (a question could not be answered on it).
    public static func open(descriptor: Int32) -> ChannelUserInterface? {
        guard (try? FileStatus(descriptor: descriptor))?.kind == .socket else { return nil }
        return ChannelUserInterface(descriptor: descriptor)
    }

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    public func present(_ request: UserInterfaceRequest, providerName: String) throws(UserInterfaceError) -> UserInterfaceAnswer {
        try ask(Self.encoded(request, owner: providerName), request)
    }

    /// autofill's own authentication (PAM's conversation; ``ChannelHostPrompts``): owner "autofill"
    /// and `"authentication":true`, which no provider's request carries, so the prompt window frames
    /// it as autofill's own.
    public func presentAuthentication(_ request: UserInterfaceRequest) throws(UserInterfaceError) -> UserInterfaceAnswer {
        var encoded = Self.encoded(request, owner: "autofill")
        encoded.authentication = true
        return try ask(encoded, request)
    }

    private func ask(_ encoded: Request, _ request: UserInterfaceRequest) throws(UserInterfaceError) -> UserInterfaceAnswer {
        try lock.withLock { _ throws(UserInterfaceError) in
            guard let data = try? JSONEncoder().encode(encoded),
                  write(Array(data) + [0x0A]) else { throw .unavailable("the UI channel is closed") }
            guard let line = readLine(), let answer = try? JSONDecoder().decode(Answer.self, from: Data(line)) else {
                throw .canceled
            }
            return try Self.decoded(answer, for: request)
        }
    }

    private static func encoded(_ request: UserInterfaceRequest, owner: String) -> Request {
        switch request {
        case .prompt(let title, let message, let secret, let maxLength):
            Request(owner: owner, kind: "prompt", title: title, message: message, secret: secret, maxLength: maxLength)
        case .choose(let title, let items): Request(owner: owner, kind: "choose", title: title, items: items)
        case .confirm(let title, let message): Request(owner: owner, kind: "confirm", title: title, message: message)
        case .message(let title, let message): Request(owner: owner, kind: "message", title: title, message: message)
        }
    }

    /// The answer, when it fits the request; a cancel or anything else cancels it.
    private static func decoded(_ answer: Answer, for request: UserInterfaceRequest) throws(UserInterfaceError) -> UserInterfaceAnswer {
        if answer.cancel == true { throw .canceled }
        switch request {
        case .prompt(_, _, _, let maxLength):
            guard let text = answer.text, text.utf8.count <= maxLength else { throw .canceled }
            return .text(Secret(text))
        case .choose(_, let items):
            guard let choice = answer.choice, items.indices.contains(choice) else { throw .canceled }
            return .choice(choice)
        case .confirm:
            guard let yes = answer.confirmed else { throw .canceled }
            return .confirmed(yes)
        case .message:
            guard answer.acknowledged == true else { throw .canceled }
            return .acknowledged
        }
    }

    private func write(_ bytes: [UInt8]) -> Bool {
        (try? Descriptors.sendAll(descriptor, bytes)) != nil
    }

    /// One line (without its newline), read a byte at a time so nothing after it is consumed; nil
    /// when the channel ends first or the line is too long.
    private func readLine() -> [UInt8]? {
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while line.count <= Self.maximumLineBytes {
            let got = try? withUnsafeMutableBytes(of: &byte) { raw in try Descriptors.read(descriptor, into: raw) }
            guard got == 1 else { return nil }
            if byte == 0x0A { return line }
            line.append(byte)
        }
        return nil
    }
}
