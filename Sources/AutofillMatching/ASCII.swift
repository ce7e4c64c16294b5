/// Byte-level helpers for the ASCII text of hosts and URLs (no Foundation, no regex).
enum ASCII {
    static let slash = UInt8(ascii: "/")
    static let backslash = UInt8(ascii: "\\")
    static let colon = UInt8(ascii: ":")
    static let question = UInt8(ascii: "?")
    static let hash = UInt8(ascii: "#")
    static let at = UInt8(ascii: "@")
    static let dot = UInt8(ascii: ".")
    static let openBracket = UInt8(ascii: "[")
    static let closeBracket = UInt8(ascii: "]")
    static let hyphen = UInt8(ascii: "-")
    static let underscore = UInt8(ascii: "_")
    static let space = UInt8(ascii: " ")

    @inline(__always) static func isDigit(_ byte: UInt8) -> Bool { byte &- 0x30 < 10 }
    @inline(__always) static func isUpper(_ byte: UInt8) -> Bool { byte &- 0x41 < 26 }
    @inline(__always) static func isLower(_ byte: UInt8) -> Bool { byte &- 0x61 < 26 }
    @inline(__always) static func isAlpha(_ byte: UInt8) -> Bool { isUpper(byte) || isLower(byte) }
    @inline(__always) static func lowered(_ byte: UInt8) -> UInt8 { isUpper(byte) ? byte | 0x20 : byte }
    /// C0 controls and DEL.
    @inline(__always) static func isControl(_ byte: UInt8) -> Bool { byte < 0x20 || byte == 0x7F }

    static func hexValue(_ byte: UInt8) -> UInt16? {
        if isDigit(byte) { return UInt16(byte &- 0x30) }
        let lower = lowered(byte)
        if lower &- 0x61 < 6 { return UInt16(lower &- 0x61 + 10) }
        return nil
    }

    /// The bytes as a string (they are ASCII or valid UTF-8 taken from a `String`).
    static func string(_ bytes: some Collection<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }

    /// The bytes lower-cased, as a string.
    static func loweredString(_ bytes: some Collection<UInt8>) -> String {
        String(decoding: bytes.lazy.map(lowered), as: UTF8.self)
    }

    /// Whether `host` is `suffix` or ends with "." + `suffix` (a label-boundary suffix, or equal).
    static func hasLabelSuffix(_ host: String, _ suffix: String) -> Bool {
        let hostBytes = host.utf8, suffixBytes = suffix.utf8
        let hostCount = hostBytes.count, suffixCount = suffixBytes.count
        if hostCount == suffixCount { return host == suffix }
        guard hostCount > suffixCount, suffixCount > 0 else { return false }
        let start = hostBytes.index(hostBytes.endIndex, offsetBy: -suffixCount)
        return hostBytes[hostBytes.index(before: start)] == dot && hostBytes[start...].elementsEqual(suffixBytes)
    }

    /// The number of dot-separated labels in a non-empty host.
    static func labelCount(_ host: String) -> Int {
        var count = 1
        for byte in host.utf8 where byte == dot { count += 1 }
        return count
    }
}
