public import AutofillCore

/// A search by name (`autofill suggest fastmail`): a term matched against each identity's name,
/// user and site, case-insensitively, as a substring (docs/MATCHING.md, "Found by name").
///
/// - The **name** is the provider's record identifier when it is one a person wrote (pass: the
///   entry's path, `Email/fastmail`); opaque ones (UUIDs, hex keys, D-Bus object paths) are not
///   names and are never matched.
/// - The **user** is the user name (passwords, passkeys) or label (one-time codes).
/// - The **site** is the host of the identity's service (passkeys: the relying party).
///
/// Quality, best first: ``MatchQuality/exactName`` (a field equals the term; also the last
/// component of a name's path, and the site's registrable domain without its public suffix:
/// `github` for `gist.github.com`), ``MatchQuality/namePrefix`` (a field, or a name's last
/// component, starts with it), ``MatchQuality/nameSubstring`` (a field contains it).
public struct NameQuery: Hashable, Sendable, CustomStringConvertible {
    /// The term as given (trimmed).
    public let term: String
    /// The term, lower-cased, that fields are compared with.
    let folded: String

    /// A query for `term`; nil when it is empty or only spaces.
    public init?(_ term: String) {
        let trimmed = term.trimmingSpaces
        guard !trimmed.isEmpty else { return nil }
        self.term = trimmed
        folded = trimmed.lowercased()
    }

    public var description: String { term }

    /// Whether `text` (a command's search term) is a name rather than a site: it has no scheme, and
    /// the part before its first `/` has no `.`, `:` or `[` and is not `localhost`. `fastmail`,
    /// `github`, `Email/fastmail` are names; `fastmail.com`, `https://nas`, `nas:5000`, `localhost`,
    /// `[::1]` are sites.
    public static func isName(_ text: String) -> Bool {
        let trimmed = text.trimmingSpaces
        guard !trimmed.isEmpty, !trimmed.contains("://") else { return false }
        let head = trimmed.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? trimmed
        guard !head.isEmpty, !head.contains(where: { $0 == "." || $0 == ":" || $0 == "[" }) else { return false }
        return head.lowercased() != "localhost"
    }

    /// How well `identity` matches, or nil when no field holds the term.
    public func match(_ identity: CredentialIdentity) -> MatchQuality? {
        let name = Self.name(of: identity)?.lowercased()
        let user = identity.displayUser.lowercased()
        let site = IdentityIndex.serviceName(for: identity)?.hostText.lowercased()
        let lastComponent = name.flatMap { $0.split(separator: "/").last.map(String.init) }
        let siteLabel = site.flatMap { PublicSuffixList.shared.registrableDomain($0) }.flatMap { $0.split(separator: ".").first.map(String.init) }
        let whole = [name, user, site].compactMap { $0 }.filter { !$0.isEmpty }
        if (whole + [lastComponent, siteLabel].compactMap { $0 }).contains(folded) { return .exactName }
        if (whole + [lastComponent].compactMap { $0 }).contains(where: { $0.hasPrefix(folded) }) { return .namePrefix }
        if whole.contains(where: { $0.contains(folded) }) { return .nameSubstring }
        return nil
    }

    /// The identity's name: its record identifier when a person wrote it, nil when it is opaque.
    public static func name(of identity: CredentialIdentity) -> String? {
        guard let record = identity.recordIdentifier, !record.isEmpty, !isOpaque(record) else { return nil }
        return record
    }

    /// A record identifier no person wrote: an object path (`/org/freedesktop/secrets/…`), or one
    /// whose hex parts (of at least 4 digits, between dashes, `#` or `:`) hold 12 digits or more: a
    /// UUID (KeePassXC, the Vault), `otp-<hash>` (Authenticator), with any suffix such as `#otp`.
    static func isOpaque(_ record: String) -> Bool {
        if record.hasPrefix("/") { return true }
        let parts = record.split(whereSeparator: { !$0.isLetter && !$0.isNumber })
        let hexDigits = parts.filter { $0.count >= 4 && $0.allSatisfy(\.isHexDigit) }.reduce(0) { $0 + $1.count }
        return hexDigits >= 12
    }
}

extension String {
    /// Without leading and trailing spaces, tabs and line breaks.
    var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
