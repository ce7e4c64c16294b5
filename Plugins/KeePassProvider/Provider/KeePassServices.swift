import AutofillCore

/// The service identifiers of a KeePass URL as KeePassXC users write them: a web address
/// (`https://example.com/login`), a bare host (`example.com`), or a host and port without a scheme
/// (`10.20.30.40:5001`, `intranet.example:8080`: suggested for that host). Other schemes (ssh://, cmd://,
/// androidapp://) name no web service and are left out. User information before the host
/// (`https://user:password@host/`) is dropped: the identifier is stored unencrypted.
enum KeePassServices {
    static func service(for url: String) -> ServiceIdentifier? {
        let text = url.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty, !text.contains(where: { $0.isWhitespace || $0 == "\\" }) else { return nil }
        guard let schemeEnd = text.range(of: "://") else {
            var domain = text.lowercased()
            if let end = domain.firstIndex(where: { "/?#".contains($0) }) { domain = String(domain[..<end]) }
            var port = ""
            if let colon = domain.lastIndex(of: ":"), domain.index(after: colon) < domain.endIndex,
               domain[domain.index(after: colon)...].allSatisfy({ $0.isASCII && $0.isNumber }) {
                port = String(domain[colon...])
                domain = String(domain[..<colon])
            }
            if domain.hasSuffix(".") { domain.removeLast() }
            guard !domain.isEmpty, !domain.contains(where: { ":@".contains($0) }) else { return nil }
            // A port makes it a URL without a scheme, which matching reads as host and port.
            return port.isEmpty ? ServiceIdentifier(identifier: domain, type: .domain) : ServiceIdentifier(identifier: domain + port, type: .url)
        }
        let scheme = text[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "https" || scheme == "http" else { return nil }
        let authorityStart = schemeEnd.upperBound
        let authorityEnd = text[authorityStart...].firstIndex(where: { "/?#".contains($0) }) ?? text.endIndex
        var identifier = text
        if let at = text[authorityStart..<authorityEnd].lastIndex(of: "@") {
            identifier = String(text[..<authorityStart] + text[text.index(after: at)...])
        }
        guard identifier.count > schemeEnd.upperBound.utf16Offset(in: text) else { return nil }
        return ServiceIdentifier(identifier: identifier, type: .url)
    }

    /// The lowercased host of a service, for ordering lists.
    static func host(of service: ServiceIdentifier) -> String {
        var rest = Substring(service.identifier.lowercased())
        if let schemeEnd = rest.range(of: "://") { rest = rest[schemeEnd.upperBound...] }
        if let end = rest.firstIndex(where: { "/?#".contains($0) }) { rest = rest[..<end] }
        if let colon = rest.lastIndex(of: ":"), !rest.hasPrefix("[") { rest = rest[..<colon] }
        return String(rest)
    }

    /// How closely `service` fits `requested`: 2 the same host, 1 a parent or child domain, 0
    /// unrelated. For ordering a list the user picks from, not a security decision.
    static func closeness(of service: ServiceIdentifier, to requested: [ServiceIdentifier]) -> Int {
        let host = host(of: service)
        return requested.map { wanted in
            let other = Self.host(of: wanted)
            return other == host ? 2 : other.hasSuffix("." + host) || host.hasSuffix("." + other) ? 1 : 0
        }.max() ?? 0
    }
}
