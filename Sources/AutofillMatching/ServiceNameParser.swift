public import AutofillCore

extension ServiceName {
    /// Parses a URL (`https://example.com/login`), a domain (`example.com`) or a domain with a port
    /// or path but no scheme (`example.com/login`).
    ///
    /// Drops userinfo (everything before the last "@" of the authority), the query and the
    /// fragment; folds case; drops one trailing dot; converts Unicode domains to punycode.
    public static func parse(_ text: String) throws(ServiceNameError) -> ServiceName {
        try ServiceNameParser.parse(text, hostOnly: false)
    }

    /// Parses a service identifier's text; the type does not matter (a `.url` without a scheme and
    /// a `.domain` with one parse by their text).
    public static func parse(_ serviceIdentifier: ServiceIdentifier) throws(ServiceNameError) -> ServiceName {
        try parse(serviceIdentifier.identifier)
    }

    /// Parses a WebAuthn relying party identifier: a bare host (a domain or an IP address), without
    /// a scheme, userinfo, port, path, query or fragment.
    public static func parseRelyingParty(_ text: String) throws(ServiceNameError) -> ServiceName {
        try ServiceNameParser.parse(text, hostOnly: true)
    }
}

/// The byte-level parser behind ``ServiceName/parse(_:)``.
enum ServiceNameParser {
    /// Schemes whose URLs end the authority at "\" too and treat "\" in the path as "/", as browsers
    /// do; text without a scheme is treated the same way.
    static func isSpecial(_ scheme: String?) -> Bool {
        switch scheme {
        case nil, "http", "https", "ws", "wss", "ftp": true
        default: false
        }
    }

    static func parse(_ text: String, hostOnly: Bool) throws(ServiceNameError) -> ServiceName {
        let bytes = Array(text.utf8)
        func fail(_ problem: String) -> ServiceNameError { ServiceNameError(input: text, problem: problem) }

        // Leading and trailing spaces and control characters are ignored, as browsers do.
        var start = 0, end = bytes.count
        while start < end, bytes[start] <= ASCII.space { start += 1 }
        while end > start, bytes[end - 1] <= ASCII.space { end -= 1 }
        guard start < end else { throw fail("it is empty apart from spaces and control characters") }

        // Scheme: letters, digits, "+", "-", "." before "://".
        var scheme: String?
        var index = start
        while index < end, !isDelimiter(bytes[index]) { index += 1 }
        if index + 2 < end, bytes[index] == ASCII.colon, bytes[index + 1] == ASCII.slash, bytes[index + 2] == ASCII.slash {
            let candidate = bytes[start..<index]
            guard let first = candidate.first else { throw fail("it has \"://\" but no scheme before it") }
            guard ASCII.isAlpha(first), candidate.allSatisfy(isSchemeByte) else {
                throw fail("\"\(ASCII.string(candidate))\" is not a scheme (a scheme is letters, digits, \"+\", \"-\" or \".\", starting with a letter)")
            }
            if hostOnly { throw fail("a relying party identifier is a bare domain, without a scheme") }
            scheme = ASCII.loweredString(candidate)
            start = index + 3
        }
        let special = isSpecial(scheme)

        // Authority: up to the first "/", "?", "#" (and "\" for special schemes).
        var authorityEnd = start
        while authorityEnd < end {
            let byte = bytes[authorityEnd]
            if byte == ASCII.slash || byte == ASCII.question || byte == ASCII.hash || (special && byte == ASCII.backslash) { break }
            authorityEnd += 1
        }
        var path = ""
        if authorityEnd < end {
            if hostOnly { throw fail("a relying party identifier is a bare domain, without a path, query or fragment") }
            let first = bytes[authorityEnd]
            if first == ASCII.slash || first == ASCII.backslash {
                var pathEnd = authorityEnd
                while pathEnd < end, bytes[pathEnd] != ASCII.question, bytes[pathEnd] != ASCII.hash { pathEnd += 1 }
                let pathBytes = bytes[authorityEnd..<pathEnd]
                path = special ? ASCII.string(pathBytes.lazy.map { $0 == ASCII.backslash ? ASCII.slash : $0 }) : ASCII.string(pathBytes)
            }
        }

        // Userinfo: everything before the last "@" of the authority; dropped.
        var hostStart = start
        if let at = bytes[start..<authorityEnd].lastIndex(of: ASCII.at) {
            if hostOnly { throw fail("a relying party identifier is a bare domain, without \"@\"") }
            hostStart = at + 1
        }
        let hostPort = bytes[hostStart..<authorityEnd]
        guard !hostPort.isEmpty else { throw fail("it has no host") }

        var hostBytes: ArraySlice<UInt8>
        var portBytes: ArraySlice<UInt8>?
        if hostPort.first == ASCII.openBracket {
            guard let close = hostPort.firstIndex(of: ASCII.closeBracket) else {
                throw fail("\"[\" opens an IPv6 address but no \"]\" closes it (write it as \"https://[2001:db8::1]/\")")
            }
            let address = hostPort[(hostPort.startIndex + 1)..<close]
            guard let groups = IPAddress.parseIPv6(address) else {
                throw fail("\"\(ASCII.string(address))\" in brackets is not an IPv6 address (such as \"[2001:db8::1]\")")
            }
            let rest = hostPort[(close + 1)...]
            if let first = rest.first {
                guard first == ASCII.colon else {
                    throw fail("only \":\" and a port may follow \"]\" (as in \"https://[2001:db8::1]:8443/\")")
                }
                portBytes = rest.dropFirst()
            }
            let port = try parsePort(portBytes, hostOnly: hostOnly, fail: fail)
            return ServiceName(scheme: scheme, host: .ipv6(IPAddress.formatIPv6(groups)), port: port, path: path)
        }
        if hostPort.contains(ASCII.openBracket) || hostPort.contains(ASCII.closeBracket) {
            throw fail("brackets may only enclose a whole IPv6 address (as in \"https://[2001:db8::1]/\")")
        }
        let colons = hostPort.lazy.filter { $0 == ASCII.colon }.count
        if colons > 1 {
            if scheme == nil, let groups = IPAddress.parseIPv6(hostPort) {
                return ServiceName(scheme: nil, host: .ipv6(IPAddress.formatIPv6(groups)), port: nil, path: path)
            }
            throw fail("it has more than one \":\"; an IPv6 address goes in brackets (as in \"https://[2001:db8::1]/\")")
        }
        if let colon = hostPort.firstIndex(of: ASCII.colon) {
            hostBytes = hostPort[..<colon]
            portBytes = hostPort[(colon + 1)...]
        } else {
            hostBytes = hostPort
        }
        let port = try parsePort(portBytes, hostOnly: hostOnly, fail: fail)
        let host = try parseHost(hostBytes, fail: fail)
        return ServiceName(scheme: scheme, host: host, port: port, path: path)
    }

    /// "/", "?", "#", "\" and ":" end a scheme candidate; so does "@".
    @inline(__always) static func isDelimiter(_ byte: UInt8) -> Bool {
        byte == ASCII.colon || byte == ASCII.slash || byte == ASCII.question || byte == ASCII.hash
            || byte == ASCII.backslash || byte == ASCII.at
    }

    @inline(__always) static func isSchemeByte(_ byte: UInt8) -> Bool {
        ASCII.isAlpha(byte) || ASCII.isDigit(byte) || byte == UInt8(ascii: "+") || byte == ASCII.hyphen || byte == ASCII.dot
    }

    /// Digits 0–65535; empty is no port (as browsers read "https://example.com:/").
    static func parsePort(
        _ bytes: ArraySlice<UInt8>?, hostOnly: Bool, fail: (String) -> ServiceNameError
    ) throws(ServiceNameError) -> Int? {
        guard let bytes else { return nil }
        if hostOnly { throw fail("a relying party identifier is a bare domain, without a port") }
        if bytes.isEmpty { return nil }
        var value = 0
        for byte in bytes {
            guard ASCII.isDigit(byte) else {
                throw fail("the port \"\(ASCII.string(bytes))\" is not a number (a port is 0–65535, as in \"https://example.com:8443/\"; a scheme is followed by \"//\")")
            }
            value = value * 10 + Int(byte &- 0x30)
            guard value <= 65535 else {
                throw fail("the port \"\(ASCII.string(bytes))\" is out of range (a port is 0–65535, as in \"https://example.com:8443/\")")
            }
        }
        return value
    }
}
