import FoundationEssentials

/// What the extension's background asks the host (docs/BROWSER.md, "The host's messages"). The
/// origin is the one the browser reported for the frame that asked (the background takes it from
/// the message's `sender`, never from the page); the host checks it is a web origin and nothing else.
struct BrowserRequest: Decodable, Equatable {
    enum Action: String, Decodable {
        /// The suggestions for `origin`: positions, user names and provider names; never a secret.
        case suggest
        /// The secret of the suggestion at `position`, which must still be `user`'s.
        case fill
        /// A new password for `origin` from the providers (`autofill generate`), honouring `rules`
        /// (the field's `passwordrules`); asked only after the user picked "Use a strong password".
        case generate
        /// Saves (or updates) `user`'s `password` for `origin` (`autofill save`), after the user
        /// said so in the extension's own prompt.
        case save
    }

    enum Kind: String, Decodable {
        case password, otp
    }

    let type: Action
    let origin: String
    let kind: Kind
    let position: Int?
    let user: String?
    let rules: String?
    let password: String?

    /// Why this request is refused, or nil.
    var problem: String? {
        guard Self.isWebOrigin(origin) else {
            return "the origin must be a web origin (http or https, a host, an optional port, nothing else)"
        }
        if let rules, rules.utf8.count > 1_000 || rules.contains(where: { $0.isNewline }) {
            return "passwordrules must be one line of at most 1000 bytes"
        }
        if type == .save {
            guard let user, !user.isEmpty, user.utf8.count <= 1_000, !user.contains(where: \.isNewline) else {
                return "save needs a user name: one line of at most 1000 bytes"
            }
            guard let password, !password.isEmpty, password.utf8.count <= 4_000, !password.contains(where: \.isNewline) else {
                return "save needs a password: one line of at most 4000 bytes"
            }
        }
        if type == .fill {
            guard let position, position >= 1, position <= 1_000 else { return "fill needs a position from 1 to 1000" }
            guard user != nil else { return "fill needs the user name the list showed" }
        }
        return nil
    }

    /// `origin` is `http://host[:port]` or `https://host[:port]`: the form the browser's `sender.origin`
    /// has. No path, no user or password, no other scheme (an opaque origin is "null").
    static func isWebOrigin(_ origin: String) -> Bool {
        guard origin.utf8.count <= 300 else { return false }
        let rest: Substring
        if origin.hasPrefix("https://") {
            rest = origin.dropFirst(8)
        } else if origin.hasPrefix("http://") {
            rest = origin.dropFirst(7)
        } else {
            return false
        }
        var host = rest
        if let colon = rest.lastIndex(of: ":"), !rest.hasSuffix("]") {
            let port = rest[rest.index(after: colon)...]
            guard !port.isEmpty, port.count <= 5, port.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(port), number <= 65_535 else {
                return false
            }
            host = rest[..<colon]
        }
        guard !host.isEmpty else { return false }
        let allowed: (Character) -> Bool = { character in
            character.isASCII && (character.isLetter || character.isNumber || "-.[]:".contains(character))
        }
        return host.allSatisfy(allowed) && !host.hasPrefix("-") && !host.hasPrefix(".")
    }
}

/// What `autofill suggest --json` prints, as far as the host reads it.
struct SuggestOutput: Decodable {
    struct Entry: Decodable {
        struct Provider: Decodable {
            let displayName: String
        }

        let position: Int
        let provider: Provider
        let kind: String
        let user: String
    }

    let suggestions: [Entry]
}

/// What `autofill fill --json` prints, as far as the host reads it.
struct FillOutput: Decodable {
    let user: String?
    let password: String?
    let code: String?
}
