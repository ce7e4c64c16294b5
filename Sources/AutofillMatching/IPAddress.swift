/// Strict IPv4 and IPv6 address parsing and canonical formatting.
enum IPAddress {
    /// A dotted quad: exactly four decimal numbers 0–255 without leading zeros.
    static func parseIPv4(_ bytes: some Collection<UInt8>) -> [UInt8]? {
        var octets: [UInt8] = []
        octets.reserveCapacity(4)
        var value = 0, digits = 0, leadingZero = false
        for byte in bytes {
            if byte == ASCII.dot {
                guard digits > 0, octets.count < 3 else { return nil }
                octets.append(UInt8(value))
                value = 0
                digits = 0
            } else if ASCII.isDigit(byte) {
                if digits == 0 { leadingZero = byte == UInt8(ascii: "0") } else if leadingZero { return nil }
                value = value * 10 + Int(byte &- 0x30)
                digits += 1
                guard value <= 255 else { return nil }
            } else {
                return nil
            }
        }
        guard digits > 0, octets.count == 3 else { return nil }
        octets.append(UInt8(value))
        return octets
    }

    static func formatIPv4(_ octets: some Collection<UInt8>) -> String {
        octets.map { String($0) }.joined(separator: ".")
    }

    /// RFC 4291 text: hex groups, at most one "::", optionally a dotted quad in the last 32 bits.
    /// No zone identifiers.
    static func parseIPv6(_ input: some Collection<UInt8>) -> [UInt16]? {
        let bytes = Array(input)
        var groups: [UInt16] = []
        var compressAt: Int?
        var index = 0
        let count = bytes.count
        guard count >= 2 else { return nil }
        if bytes[0] == ASCII.colon {
            guard bytes[1] == ASCII.colon else { return nil }
            compressAt = 0
            index = 2
            if index == count { return [UInt16](repeating: 0, count: 8) }
        }
        while index < count {
            guard groups.count < 8 else { return nil }
            // A group: up to four hex digits, or a dotted quad at the end.
            var value: UInt16 = 0
            var digits = 0
            let start = index
            while index < count, let hex = ASCII.hexValue(bytes[index]) {
                guard digits < 4 else { return nil }
                value = value << 4 | hex
                digits += 1
                index += 1
            }
            if index < count, bytes[index] == ASCII.dot {
                guard groups.count <= 6, let octets = parseIPv4(bytes[start...]) else { return nil }
                groups.append(UInt16(octets[0]) << 8 | UInt16(octets[1]))
                groups.append(UInt16(octets[2]) << 8 | UInt16(octets[3]))
                index = count
                break
            }
            guard digits > 0 else { return nil }
            groups.append(value)
            if index == count { break }
            guard bytes[index] == ASCII.colon else { return nil }
            index += 1
            if index < count, bytes[index] == ASCII.colon {
                guard compressAt == nil else { return nil }
                compressAt = groups.count
                index += 1
                if index == count { break }
            } else if index == count {
                return nil  // a trailing single ":"
            }
        }
        if let at = compressAt {
            guard groups.count < 8 else { return nil }
            groups.insert(contentsOf: [UInt16](repeating: 0, count: 8 - groups.count), at: at)
        }
        return groups.count == 8 ? groups : nil
    }

    /// RFC 5952: lower-case hex, no leading zeros, the longest run of two or more zero groups as
    /// "::" (the first such run on a tie); IPv4-mapped addresses end in a dotted quad.
    static func formatIPv6(_ groups: [UInt16]) -> String {
        if groups[0..<5].allSatisfy({ $0 == 0 }) && groups[5] == 0xFFFF {
            let octets = [UInt8(groups[6] >> 8), UInt8(groups[6] & 0xFF), UInt8(groups[7] >> 8), UInt8(groups[7] & 0xFF)]
            return "::ffff:" + formatIPv4(octets)
        }
        var bestStart = -1, bestLength = 1, runStart = -1
        for index in 0...8 {
            if index < 8 && groups[index] == 0 {
                if runStart < 0 { runStart = index }
            } else if runStart >= 0 {
                if index - runStart > bestLength {
                    bestStart = runStart
                    bestLength = index - runStart
                }
                runStart = -1
            }
        }
        func hex(_ range: Range<Int>) -> String {
            groups[range].map { String($0, radix: 16) }.joined(separator: ":")
        }
        if bestStart < 0 { return hex(0..<8) }
        return hex(0..<bestStart) + "::" + hex((bestStart + bestLength)..<8)
    }
}
