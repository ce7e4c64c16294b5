/// Why a text is not a service name: what is wrong with it and what a valid one looks like.
///
/// The message quotes at most the input itself (control characters escaped, long inputs shortened,
/// user information before the host shown as `<REDACTED>`: it may hold a password), never anything else.
public struct ServiceNameError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The whole explanation, for the user.
    public var message: String

    /// Creates an error with a ready-made message.
    public init(message: String) {
        self.message = message
    }

    public var description: String { message }

    static let validExample = #"A valid service name is a domain such as "example.com" or a URL such as "https://example.com/login"."#

    /// An error about `input`: `problem` is a sentence fragment such as "the port is not a number".
    init(input: String, problem: String) {
        if input.isEmpty {
            self.message = "The service name is empty. " + Self.validExample
        } else {
            self.message = "\"\(Self.quoted(input))\" is not a valid service name: \(problem). " + Self.validExample
        }
    }

    /// `input` with user information redacted (``withoutUserInfo(_:)``), control characters escaped,
    /// shortened to 200 characters.
    static func quoted(_ input: String) -> String {
        var result = ""
        var count = 0
        for scalar in withoutUserInfo(input).unicodeScalars {
            if count == 200 {
                result += "…"
                break
            }
            count += 1
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                result += "\\u{" + String(scalar.value, radix: 16) + "}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// `input` with everything before the last "@" of the authority (after "://", else from the
    /// start, up to the first "/", "?", "#" or backslash) replaced by `<REDACTED>`: in
    /// `https://alice:hunter2@example.com` that is a user name and password.
    static func withoutUserInfo(_ input: String) -> String {
        let scalars = input.unicodeScalars
        let start = input.firstRange(of: "://")?.upperBound ?? scalars.startIndex
        let end = scalars[start...].firstIndex(where: { "/?#\\".unicodeScalars.contains($0) }) ?? scalars.endIndex
        guard let at = scalars[start..<end].lastIndex(of: "@") else { return input }
        return String(scalars[..<start]) + "<REDACTED>" + String(scalars[at...])
    }
}
