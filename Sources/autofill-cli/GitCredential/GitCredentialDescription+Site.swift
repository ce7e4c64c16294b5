/// The site a description names, and the answer autofill gives git.
extension GitCredentialDescription {
    /// The site autofill fills for, `protocol://host[:port][/path]` (the path only when git sent one:
    /// `credential.useHttpPath`), or why it fills nothing: not http or https, no host, or a host or
    /// path no URL of a real server has.
    var site: Result<String, SiteRefusal> {
        guard let scheme = protocolName?.lowercased(), scheme == "http" || scheme == "https" else {
            return .failure(SiteRefusal("git asks about \(protocolName.map { "the protocol \($0)" } ?? "no protocol"); autofill answers for http and https"))
        }
        guard let host, !host.isEmpty else { return .failure(SiteRefusal("git names no host")) }
        // A host name, an IPv4 address or a bracketed IPv6 address, and a port: no userinfo (`@`), no
        // path, query or fragment, no spaces, control characters or percent escapes.
        guard host.unicodeScalars.allSatisfy({ scalar in
            scalar.isASCII ? Self.hostCharacters.contains(scalar) : !scalar.properties.isWhitespace && scalar.properties.generalCategory != .control
                && scalar.properties.generalCategory != .format
        }) else {
            return .failure(SiteRefusal("the host git names is not a host name"))
        }
        var site = "\(scheme)://\(host)"
        if let path, !path.isEmpty {
            let segments = path.split(separator: "/", omittingEmptySubsequences: false)
            guard !segments.contains(where: { $0 == "." || $0 == ".." }) else {
                return .failure(SiteRefusal("the path git names has . or .. segments"))
            }
            guard !path.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0.properties.generalCategory == .format }) else {
                return .failure(SiteRefusal("the path git names holds control characters"))
            }
            site += "/" + Self.percentEncoded(path.drop { $0 == "/" })
        }
        return .success(site)
    }

    /// Why autofill gives git nothing for a description (shown with `--verbose` only).
    struct SiteRefusal: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    static let hostCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_:[]".unicodeScalars)

    /// `path` with every byte but unreserved characters, sub-delimiters, `:`, `@` and `/` escaped: a
    /// `?`, `#` or `\` in a path is part of it, never a query, fragment or separator.
    static func percentEncoded(_ path: some StringProtocol) -> String {
        let kept = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=:@/".utf8)
        let hex = Array("0123456789ABCDEF".utf8)
        var result: [UInt8] = []
        for byte in path.utf8 {
            if kept.contains(byte) {
                result.append(byte)
            } else {
                result += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// The lines git reads back from `get`: `username=` and `password=`, or nil when a value cannot be
    /// carried whole in git's format (a line break, carriage return or NUL, which would end the value
    /// early and let the rest read as further keys; or a line over git's limit).
    static func answer(user: String, password: String) -> String? {
        let lines = ["username=" + user, "password=" + password]
        for line in lines {
            guard line.utf8.count < maximumLineLength, !line.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D || $0 == 0 }) else { return nil }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
