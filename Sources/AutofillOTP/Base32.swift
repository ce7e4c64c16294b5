/// Base32 (RFC 4648 §6), the encoding of one-time-code secrets.
///
/// Decoding is forgiving the way people copy secrets: upper or lower case, with or without
/// `=` padding, with spaces and hyphens anywhere (`jbsw y3dp-ehpk 3pxp`). It refuses anything
/// else with a message that gives the position of the problem but never the secret's characters.
public enum Base32 {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    /// An example for messages: a valid Base32 secret that is obviously nobody's.
    static let example = "YOURBASE32SECRET"

    /// The bytes of Base32 `text`.
    ///
    /// Prefer ``OTPSecret/init(base32:)`` for secrets: it decodes straight into memory that is
    /// wiped when the secret is released.
    public static func decode(_ text: String) throws(OTPError) -> [UInt8] {
        let count: Int
        do {
            count = try measure(text)
        } catch {
            throw self.error(error)
        }
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBytes { decode(text, into: $0) }
        return bytes
    }

    /// The Base32 text of `bytes`, upper case; padded with `=` only when `padding` is true
    /// (`otpauth://` URIs leave the padding out).
    public static func encode(_ bytes: some Collection<UInt8>, padding: Bool = false) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count * 8 + 4) / 5 + 6)
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | UInt32(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                output.append(alphabet[Int((buffer >> UInt32(bits)) & 0x1f)])
            }
        }
        if bits > 0 {
            output.append(alphabet[Int((buffer << UInt32(5 - bits)) & 0x1f)])
        }
        if padding {
            while output.count % 8 != 0 { output.append(UInt8(ascii: "=")) }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The value (0–31) of a Base32 symbol in either case, nil for anything else.
    static func value(of byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - UInt8(ascii: "a")
        case UInt8(ascii: "2")...UInt8(ascii: "7"): byte - UInt8(ascii: "2") + 26
        default: nil
        }
    }

    static func isIgnored(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "-" || scalar == "\t"
    }

    /// What Base32 looks like, for messages.
    static let help = "Base32 uses the letters A–Z and the digits 2–7 (0, 1, 8 and 9 are not Base32)"

    /// Why a text is not Base32: a position or a count, never the text's characters.
    struct Problem: Error {
        let reason: String
    }

    /// The error for a Base32 secret given on its own.
    static func error(_ problem: Problem) -> OTPError {
        OTPError(.invalidSecret, "the secret is not valid Base32: \(problem.reason). \(help), for example \(example)")
    }

    /// Checks `text` and returns how many bytes it decodes to.
    static func measure(_ text: String) throws(Problem) -> Int {
        var symbols = 0
        var padding = 0
        for (index, scalar) in text.unicodeScalars.enumerated() {
            if isIgnored(scalar) { continue }
            if scalar == "=" {
                padding += 1
                continue
            }
            guard scalar.isASCII, value(of: UInt8(scalar.value)) != nil else {
                throw Problem(reason: "character \(index + 1) is not a Base32 character")
            }
            guard padding == 0 else {
                throw Problem(reason: "character \(index + 1) comes after the = padding, which may only end the secret")
            }
            symbols += 1
        }
        guard symbols > 0 else {
            throw Problem(reason: "it is empty")
        }
        let remainder = symbols % 8
        guard ![1, 3, 6].contains(remainder) else {
            throw Problem(reason: "\(symbols) characters cannot encode whole bytes (a character is missing or extra)")
        }
        let expectedPadding = [0: 0, 2: 6, 4: 4, 5: 3, 7: 1][remainder] ?? 0
        guard padding == 0 || padding == expectedPadding else {
            throw Problem(reason: "\(symbols) characters need \(expectedPadding) = of padding, not \(padding) (or leave the padding out)")
        }
        return symbols * 5 / 8
    }

    /// Decodes `text`, already checked by ``measure(_:)``, into `output` (exactly that many bytes).
    /// Bits left over after the last whole byte are ignored.
    static func decode(_ text: String, into output: UnsafeMutableRawBufferPointer) {
        var buffer: UInt64 = 0
        var bits = 0
        var written = 0
        for byte in text.utf8 {
            guard let symbol = value(of: byte) else { continue }
            buffer = (buffer << 5) | UInt64(symbol)
            bits += 5
            if bits >= 8 {
                bits -= 8
                if written < output.count {
                    output[written] = UInt8(truncatingIfNeeded: buffer >> UInt64(bits))
                    written += 1
                }
                buffer &= (1 << UInt64(bits)) - 1
            }
        }
    }
}
