extension ServiceNameParser {
    /// A domain or a dotted-quad IPv4 address (brackets and ports are already taken off).
    static func parseHost(_ input: ArraySlice<UInt8>, fail: (String) -> ServiceNameError) throws(ServiceNameError) -> ServiceName.Host {
        var ascii = true
        for byte in input {
            if byte == ASCII.space { throw fail("its host contains a space") }
            if ASCII.isControl(byte) { throw fail("its host contains a control character") }
            if byte >= 0x80 { ascii = false }
        }
        if input.allSatisfy({ $0 == ASCII.dot }) { throw fail("its host is only dots") }

        // Lower-case ASCII; labels with non-ASCII characters, and "xn--" labels, go through IDNA.
        var host: [UInt8] = []
        host.reserveCapacity(input.count)
        if ascii && !containsACE(input) {
            host.append(contentsOf: input.lazy.map(ASCII.lowered))
        } else {
            for (number, label) in input.split(separator: ASCII.dot, omittingEmptySubsequences: false).enumerated() {
                if number > 0 { host.append(ASCII.dot) }
                let lowered = label.map(ASCII.lowered)
                if lowered.allSatisfy({ $0 < 0x80 }) && !isACE(lowered[...]) {
                    host.append(contentsOf: lowered)
                } else {
                    guard let converted = InternationalDomainName.toASCII(lowered) else {
                        throw fail("\"\(ASCII.string(label))\" is not a valid internationalised domain label")
                    }
                    host.append(contentsOf: converted.lazy.map(ASCII.lowered))
                }
            }
        }

        // One trailing dot is the same name; any other empty label is an error.
        if host.last == ASCII.dot { host.removeLast() }
        if host.isEmpty || host.first == ASCII.dot || host.last == ASCII.dot || containsEmptyLabel(host) {
            throw fail("its host has an empty label (\"..\", or a leading dot)")
        }
        for byte in host where !(ASCII.isLower(byte) || ASCII.isDigit(byte) || byte == ASCII.hyphen || byte == ASCII.underscore || byte == ASCII.dot) {
            throw fail("its host contains \"\(ASCII.string(CollectionOfOne(byte)))\" (a host has letters, digits, \"-\", \"_\" and dots)")
        }

        // A host whose last label is a number is an IPv4 address, and then a dotted quad.
        let lastLabel = host.split(separator: ASCII.dot).last ?? host[...]
        if lastLabel.allSatisfy(ASCII.isDigit) || lastLabel.starts(with: "0x".utf8) {
            guard let octets = IPAddress.parseIPv4(host) else {
                throw fail("its host \"\(ASCII.string(host))\" ends in a number but is not an IPv4 address (four numbers 0–255 without leading zeros, as in \"192.168.1.10\")")
            }
            return .ipv4(IPAddress.formatIPv4(octets))
        }
        return .domain(ASCII.string(host))
    }

    /// Whether a label starts with the IDNA ACE prefix "xn--" (any case).
    static func isACE(_ label: ArraySlice<UInt8>) -> Bool {
        guard label.count >= 4 else { return false }
        let i = label.startIndex
        return ASCII.lowered(label[i]) == UInt8(ascii: "x") && ASCII.lowered(label[i + 1]) == UInt8(ascii: "n")
            && label[i + 2] == ASCII.hyphen && label[i + 3] == ASCII.hyphen
    }

    /// Whether any label of `host` starts with "xn--".
    static func containsACE(_ host: ArraySlice<UInt8>) -> Bool {
        var labelStart = host.startIndex
        for index in host.indices where host[index] == ASCII.dot {
            if isACE(host[labelStart..<index]) { return true }
            labelStart = index + 1
        }
        return isACE(host[labelStart...])
    }

    static func containsEmptyLabel(_ host: [UInt8]) -> Bool {
        var previousWasDot = false
        for byte in host {
            if byte == ASCII.dot && previousWasDot { return true }
            previousWasDot = byte == ASCII.dot
        }
        return false
    }
}
