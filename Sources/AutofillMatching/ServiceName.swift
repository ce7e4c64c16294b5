public import AutofillCore

/// A parsed, normalized service name: what a URL or a domain names.
///
/// `ServiceName.parse` accepts a URL (`https://example.com:8443/login?x#y`), a domain
/// (`example.com`), or a domain with a port or path but no scheme (`example.com/login`). See
/// docs/MATCHING.md for the rules.
public struct ServiceName: Hashable, Sendable, CustomStringConvertible {
    /// What the name's host is.
    public enum Host: Hashable, Sendable {
        /// A domain: lower-case ASCII (IDN labels as "xn--" punycode), no trailing dot.
        case domain(String)
        /// A dotted-quad IPv4 address.
        case ipv4(String)
        /// An IPv6 address in RFC 5952 form, without brackets.
        case ipv6(String)
    }

    /// The scheme, lower-cased; nil when the text had none.
    public var scheme: String?
    /// The host.
    public var host: Host
    /// The port as written; nil if absent.
    public var port: Int?
    /// The path ("" when none); never includes the query or the fragment.
    public var path: String

    /// Creates a name from parts that are already normalized (see ``parse(_:)``).
    public init(scheme: String?, host: Host, port: Int?, path: String) {
        self.scheme = scheme
        self.host = host
        self.port = port
        self.path = path
    }

    /// The explicit port, or the scheme's default port (http 80, https 443, ws 80, wss 443, ftp 21);
    /// nil when neither is known.
    public var effectivePort: Int? {
        if let port { return port }
        guard let scheme else { return nil }
        return Self.defaultPort(forScheme: scheme)
    }

    /// The default port of the schemes the host knows.
    public static func defaultPort(forScheme scheme: String) -> Int? {
        switch scheme {
        case "https", "wss": 443
        case "http", "ws": 80
        case "ftp": 21
        default: nil
        }
    }

    /// The host as text (an IPv6 address without brackets).
    public var hostText: String {
        switch host {
        case .domain(let text), .ipv4(let text), .ipv6(let text): text
        }
    }

    /// The domain, or nil for an IP address.
    public var domain: String? {
        if case .domain(let text) = host { return text }
        return nil
    }

    /// IP addresses, `localhost` and `*.localhost`: they match only exactly.
    public var isExactOnly: Bool {
        switch host {
        case .ipv4, .ipv6: true
        case .domain(let text): text == "localhost" || text.utf8.count > 10 && ASCII.hasLabelSuffix(text, "localhost")
        }
    }

    /// The normalized text: `https://example.com:8443/login`, `example.com/login`, `example.com`,
    /// `https://[::1]/`. It parses back to an equal name.
    public var description: String {
        var text = ""
        if let scheme { text += scheme + "://" }
        switch host {
        case .ipv6(let address) where scheme != nil || port != nil || !path.isEmpty: text += "[" + address + "]"
        default: text += hostText
        }
        if let port { text += ":" + String(port) }
        return text + path
    }

    /// The name as an Apple service identifier: a URL when it has a scheme, else a domain.
    public var serviceIdentifier: ServiceIdentifier {
        ServiceIdentifier(identifier: description, type: scheme == nil ? .domain : .url)
    }
}
