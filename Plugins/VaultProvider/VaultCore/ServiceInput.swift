public import AutofillCore

/// Service identifiers as users type them: a domain (`example.com`) or a web URL
/// (`https://accounts.example.org/login`).
///
/// The text may be a copied address holding a password (`https://alice:hunter2@example.com/`), so no
/// message here repeats it: errors name what is wrong, and user information before the host is
/// removed, because the service identifier is stored unencrypted in the identity store.
public enum ServiceInput {
    /// A service as typed, parsed: the identifier to store and what was removed from it.
    public struct Parsed: Hashable, Sendable {
        /// What stood before the host of a URL and was removed.
        public enum RemovedUserInfo: Hashable, Sendable {
            /// `user@`.
            case user
            /// `user:password@`.
            case userAndPassword
        }

        /// The service identifier to store.
        public var service: ServiceIdentifier
        /// The user information removed from the URL, if it had any.
        public var removedUserInfo: RemovedUserInfo?

        /// A warning about the removed user information that names `what` (a column, an option)
        /// and never the text itself; nil when nothing was removed.
        public func warning(naming what: String) -> String? {
            switch removedUserInfo {
            case nil: nil
            case .user: "\(what) held a user name before the host (user@); it was left out of the site address"
            case .userAndPassword:
                "\(what) held a user name and password before the host (user:password@); they were left out of the site address, which is stored unencrypted"
            }
        }
    }

    /// Parses `text` into a service identifier: a URL when it has a scheme (http or https only),
    /// otherwise a domain (lowercased, without a trailing dot). A URL's user information
    /// (`user:password@` before the host) is removed and reported in ``Parsed/removedUserInfo``.
    ///
    /// Errors start with `what` (default "the service") and never repeat the text.
    public static func parse(_ text: String, naming what: String = "the service") throws(VaultError) -> Parsed {
        let trimmed = text.trimmingWhitespace
        let example = "give a domain like example.com or a URL like https://example.com/login"
        guard !trimmed.isEmpty else { throw VaultError(.invalidInput, "\(what) is empty: \(example)") }
        if let schemeEnd = trimmed.firstRange(of: "://") {
            let scheme = trimmed[..<schemeEnd.lowerBound].lowercased()
            guard scheme == "https" || scheme == "http" else {
                let named = isScheme(scheme) ? "\(scheme)://, not " : "not "
                throw VaultError(.invalidInput, "\(what) is not a web address (\(named)http:// or https://): \(example)")
            }
            let authorityStart = schemeEnd.upperBound
            // The authority ends where a browser ends it for http(s), at "\\" too: "https://example.com\\@evil.test"
            // is example.com to the host, so it must not lose "example.com\\" as user information here.
            let authorityEnd = trimmed[authorityStart...].firstIndex(where: { "/?#\\".contains($0) }) ?? trimmed.endIndex
            var removed: Parsed.RemovedUserInfo?
            var identifier = trimmed
            if let at = trimmed[authorityStart..<authorityEnd].lastIndex(of: "@") {
                removed = trimmed[authorityStart..<at].contains(":") ? .userAndPassword : .user
                identifier = String(trimmed[..<authorityStart] + trimmed[trimmed.index(after: at)...])
            }
            if let bad = identifier.first(where: { $0.isWhitespace || $0 == "\\" }) {
                let named = bad.isWhitespace ? "a space: a web address has none (write %20 in a path)" : "a backslash: write / instead"
                throw VaultError(.invalidInput, "\(what) contains \(named); \(example)")
            }
            guard let host = host(of: identifier), !host.isEmpty else {
                throw VaultError(.invalidInput, "\(what) has no host: give a URL like https://example.com/login")
            }
            guard hasValidPort(identifier) else {
                throw VaultError(.invalidInput, "\(what) has a port that is not a number (the text after the host's \":\"): \(example)")
            }
            return Parsed(service: ServiceIdentifier(identifier: identifier, type: .url), removedUserInfo: removed)
        }
        var domain = trimmed.lowercased()
        if domain.hasSuffix(".") { domain.removeLast() }
        if let bad = domain.first(where: { $0.isWhitespace || "/:@?#".contains($0) }) {
            let named = bad.isWhitespace ? "a space" : "\"\(bad)\""
            throw VaultError(.invalidInput, "\(what) is not a domain: it contains \(named) and no http(s):// scheme; \(example)")
        }
        guard !domain.isEmpty else { throw VaultError(.invalidInput, "\(what) is not a domain: \(example)") }
        return Parsed(service: ServiceIdentifier(identifier: domain, type: .domain), removedUserInfo: nil)
    }

    /// Whether `text` has the shape of a URL scheme (RFC 3986: a letter, then letters, digits, +, -
    /// or .), short enough to name in a message.
    static func isScheme(_ text: String) -> Bool {
        let scalars = text.unicodeScalars
        guard let first = scalars.first, scalars.count <= 32, ("a"..."z").contains(first) else { return false }
        return scalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0) }
    }

    /// Whether a URL identifier without user information has no port or a port of digits.
    static func hasValidPort(_ identifier: String) -> Bool {
        var rest = Substring(identifier)
        if let schemeEnd = rest.firstRange(of: "://") { rest = rest[schemeEnd.upperBound...] }
        if let end = rest.firstIndex(where: { "/?#".contains($0) }) { rest = rest[..<end] }
        if rest.hasPrefix("["), let close = rest.firstIndex(of: "]") { rest = rest[rest.index(after: close)...] }
        guard let colon = rest.lastIndex(of: ":") else { return true }
        return rest[rest.index(after: colon)...].allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// The lowercased host of a domain or URL identifier (without user info, port or trailing dot).
    public static func host(of identifier: String) -> String? {
        var rest = Substring(identifier)
        if let schemeEnd = rest.firstRange(of: "://") { rest = rest[schemeEnd.upperBound...] }
        if let end = rest.firstIndex(where: { "/?#".contains($0) }) { rest = rest[..<end] }
        if let at = rest.lastIndex(of: "@") { rest = rest[rest.index(after: at)...] }
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { return nil }
            return String(rest[...close]).lowercased()
        }
        if let colon = rest.lastIndex(of: ":") { rest = rest[..<colon] }
        var host = rest.lowercased()
        if host.hasSuffix(".") { host.removeLast() }
        return host.isEmpty ? nil : host
    }

    /// How closely an entry's service fits the services a request names, for ordering lists:
    /// 2 the same host, 1 a parent or child domain, 0 unrelated. Not a security decision: the
    /// user picks from the list.
    public static func closeness(of service: ServiceIdentifier, to requested: [ServiceIdentifier]) -> Int {
        guard let entryHost = host(of: service.identifier) else { return 0 }
        var best = 0
        for wanted in requested {
            guard let other = host(of: wanted.identifier) else { continue }
            if other == entryHost { return 2 }
            if other.hasSuffix("." + entryHost) || entryHost.hasSuffix("." + other) { best = 1 }
        }
        return best
    }

    /// `items` ordered by ``closeness(of:to:)`` to `requested` (stable within each group).
    public static func ordered<Item>(_ items: [Item], by service: (Item) -> ServiceIdentifier, for requested: [ServiceIdentifier]) -> [Item] {
        let scored = items.enumerated().map { (index: $0.offset, score: closeness(of: service($0.element), to: requested), item: $0.element) }
        return scored.sorted { ($0.score, -$0.index) > ($1.score, -$1.index) }.map(\.item)
    }
}

extension StringProtocol {
    /// The text without leading and trailing whitespace.
    var trimmingWhitespace: String {
        guard let first = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace }) else {
            return ""
        }
        return String(self[first...last])
    }
}
