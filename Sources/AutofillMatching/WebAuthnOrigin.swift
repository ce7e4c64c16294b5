/// The origin a WebAuthn request comes from, and the relying party identifiers it may use.
///
/// The rules (WebAuthn Level 3 §5.1.3–5.1.4, with HTML's "is a registrable domain suffix of or is
/// equal to"), checked before any provider is asked:
///
/// - the origin is `https://host[:port]`, or `http://` for `localhost` and `*.localhost` only;
///   no user name, path, query or fragment (a trailing "/" is allowed);
/// - the rpId defaults to the origin's host;
/// - a domain rpId is the origin's host or a parent domain of it, and never a public suffix
///   (`com`, `co.uk`, `github.io`); `localhost` is allowed for a `localhost` origin;
/// - an IP address origin's rpId is that address, exactly.
///
/// Hosts are compared in their ASCII (IDNA) form, which is also the form providers hash.
public struct WebAuthnOrigin: Sendable, Hashable, CustomStringConvertible {
    /// The parsed origin (scheme, host, port; no path).
    public let name: ServiceName
    /// The origin as clientDataJSON carries it: `https://example.com`, `https://example.com:8443`.
    public let serialized: String

    /// Parses and checks an origin.
    public init(_ text: String) throws(WebAuthnRequestError) {
        let trimmed = text.trimmingASCIISpaces
        guard !trimmed.isEmpty else { throw .origin(text, "it is empty; give the page's origin, such as https://example.com") }
        if trimmed.utf8.contains(ASCII.at) {
            throw .origin(text, "an origin has no user name (\"@\"); give the page's origin, such as https://example.com")
        }
        if trimmed.utf8.contains(ASCII.question) || trimmed.utf8.contains(ASCII.hash) {
            throw .origin(text, "an origin has no query or fragment; give scheme, host and port only, such as https://example.com")
        }
        let parsed: ServiceName
        do {
            parsed = try ServiceName.parse(trimmed)
        } catch {
            throw .origin(text, error.message)
        }
        guard let scheme = parsed.scheme else {
            throw .origin(text, "it has no scheme; an origin starts with https://, as in https://\(parsed.hostText)")
        }
        guard parsed.path.isEmpty || parsed.path == "/" else {
            throw .origin(text, "an origin has no path (\"\(parsed.path)\"); give scheme, host and port only")
        }
        let isLocalhost: Bool = if case .domain(let host) = parsed.host { Self.isLocalhost(host) } else { false }
        switch scheme {
        case "https": break
        case "http" where isLocalhost: break
        case "http":
            throw .origin(text, "passkeys need a secure origin: https:// (http:// is allowed for localhost only)")
        default:
            throw .origin(text, "the scheme \(scheme):// is not a web origin; passkeys need https:// (or http://localhost)")
        }
        // An origin leaves out its scheme's default port, as browsers serialize it.
        let port = parsed.port == ServiceName.defaultPort(forScheme: scheme) ? nil : parsed.port
        name = ServiceName(scheme: scheme, host: parsed.host, port: port, path: "")
        serialized = name.description
    }

    /// The origin's host in ASCII form (an IPv6 address without brackets).
    public var host: String { name.hostText }

    public var description: String { serialized }

    /// The relying party identifier this origin may use: `requested`, checked and normalized to its
    /// ASCII form, or the origin's host when `requested` is nil.
    public func relyingParty(_ requested: String?) throws(WebAuthnRequestError) -> String {
        guard let requested else {
            if case .domain(let host) = name.host, !Self.isLocalhost(host), PublicSuffixList.shared.isPublicSuffix(host) {
                throw .relyingParty("(default) \(host)", serialized, "the origin's host is a public suffix, which cannot be a relying party")
            }
            return host
        }
        let parsed: ServiceName
        do {
            parsed = try ServiceName.parseRelyingParty(requested)
        } catch {
            throw .relyingParty(requested, serialized, error.message)
        }
        let rpID = parsed.hostText
        switch (parsed.host, name.host) {
        case (.domain(let rp), .domain(let origin)):
            if Self.isLocalhost(origin) {
                guard rp == origin || rp == "localhost" && ASCII.hasLabelSuffix(origin, "localhost") else {
                    throw .relyingParty(requested, serialized, "a localhost origin's relying party is \(origin) or localhost")
                }
                return rp
            }
            guard rp == origin || ASCII.hasLabelSuffix(origin, rp) else {
                throw .relyingParty(requested, serialized, "it is neither \(origin) nor a parent domain of it")
            }
            guard !PublicSuffixList.shared.isPublicSuffix(rp) else {
                throw .relyingParty(requested, serialized, "\(rp) is a public suffix: every site under it could use such passkeys")
            }
            return rp
        case (.ipv4, .ipv4), (.ipv6, .ipv6):
            guard parsed.host == name.host else {
                throw .relyingParty(requested, serialized, "an IP address origin's relying party is that address, \(host)")
            }
            return rpID
        default:
            throw .relyingParty(requested, serialized, "an IP address and a domain never match; use \(host)")
        }
    }

    static func isLocalhost(_ host: String) -> Bool {
        host == "localhost" || ASCII.hasLabelSuffix(host, "localhost")
    }
}

/// Why a WebAuthn request was refused before any provider was asked: the message names the field,
/// what is wrong and what a valid value looks like.
public struct WebAuthnRequestError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The whole explanation.
    public var message: String

    /// An error with a ready message.
    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }

    static func origin(_ text: String, _ problem: String) -> WebAuthnRequestError {
        WebAuthnRequestError("The origin \"\(ServiceNameError.quoted(text))\" cannot make passkey requests: \(problem).")
    }

    static func relyingParty(_ rpID: String, _ origin: String, _ problem: String) -> WebAuthnRequestError {
        WebAuthnRequestError("The relying party id \"\(ServiceNameError.quoted(rpID))\" is not valid for the origin \(origin): \(problem).")
    }
}

extension String {
    /// Without leading and trailing spaces and control characters.
    var trimmingASCIISpaces: String {
        let bytes = Array(utf8)
        var start = 0, end = bytes.count
        while start < end, bytes[start] <= ASCII.space { start += 1 }
        while end > start, bytes[end - 1] <= ASCII.space { end -= 1 }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }
}
