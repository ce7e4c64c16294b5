public import AutofillCore

/// Service identifiers as users type them: a domain (`example.com`) or a web URL
/// (`https://accounts.example.org/login`).
public enum ServiceInput {
    /// Parses `text` into a service identifier: a URL when it has a scheme (http or https only),
    /// otherwise a domain (lowercased, without a trailing dot).
    public static func parse(_ text: String) throws(VaultError) -> ServiceIdentifier {
        let trimmed = text.trimmingWhitespace
        guard !trimmed.isEmpty else { throw VaultError(.invalidInput, "the service is empty: give a domain or an https:// URL") }
        if let schemeEnd = trimmed.firstRange(of: "://") {
            let scheme = trimmed[..<schemeEnd.lowerBound].lowercased()
            guard scheme == "https" || scheme == "http" else {
                throw VaultError(.invalidInput, "\(trimmed) is not a web address: give a domain or an http(s):// URL")
            }
            guard let host = host(of: trimmed), !host.isEmpty, !trimmed.contains(where: \.isWhitespace) else {
                throw VaultError(.invalidInput, "\(trimmed) has no host: give a URL like https://example.com/login")
            }
            return ServiceIdentifier(identifier: trimmed, type: .url)
        }
        var domain = trimmed.lowercased()
        if domain.hasSuffix(".") { domain.removeLast() }
        guard !domain.isEmpty, !domain.contains(where: { $0.isWhitespace || "/:@?#".contains($0) }) else {
            throw VaultError(.invalidInput, "\(trimmed) is not a domain: give a domain like example.com or a URL like https://example.com/login")
        }
        return ServiceIdentifier(identifier: domain, type: .domain)
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
