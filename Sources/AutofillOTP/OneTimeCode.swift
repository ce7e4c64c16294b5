internal import Crypto

/// The HMAC hash of a one-time-code generator.
public enum OTPAlgorithm: String, Hashable, Sendable, CaseIterable {
    /// HMAC-SHA-1, the default of RFC 4226 and of `otpauth://` URIs.
    case sha1 = "SHA1"
    /// HMAC-SHA-256 (RFC 6238).
    case sha256 = "SHA256"
    /// HMAC-SHA-512 (RFC 6238).
    case sha512 = "SHA512"
}

/// HOTP (RFC 4226) and the dynamic truncation every one-time code goes through.
enum HOTP {
    /// The `digits`-digit HOTP value of `secret` at `counter`, with leading zeros.
    static func code(secret: OTPSecret, counter: UInt64, algorithm: OTPAlgorithm, digits: Int) -> String {
        decimal(binary(secret: secret, counter: counter, algorithm: algorithm), digits: digits)
    }

    /// The 31-bit value HMAC(secret, counter) truncates to, before it is reduced to digits.
    static func binary(secret: OTPSecret, counter: UInt64, algorithm: OTPAlgorithm) -> UInt32 {
        let message = withUnsafeBytes(of: counter.bigEndian) { Array($0) }
        return secret.withUnsafeBytes { keyBytes -> UInt32 in
            let key = SymmetricKey(data: keyBytes)  // SecureBytes: wiped when released
            switch algorithm {
            case .sha1: return truncate(HMAC<Insecure.SHA1>.authenticationCode(for: message, using: key))
            case .sha256: return truncate(HMAC<SHA256>.authenticationCode(for: message, using: key))
            case .sha512: return truncate(HMAC<SHA512>.authenticationCode(for: message, using: key))
            }
        }
    }

    /// Dynamic truncation (RFC 4226 §5.3): 31 bits from the offset the last byte's low nibble names.
    static func truncate(_ mac: some MessageAuthenticationCode) -> UInt32 {
        mac.withUnsafeBytes { h in
            let offset = Int(h[h.count - 1] & 0x0f)
            return UInt32(h[offset] & 0x7f) << 24 | UInt32(h[offset + 1]) << 16
                | UInt32(h[offset + 2]) << 8 | UInt32(h[offset + 3])
        }
    }

    /// `binary` modulo 10^digits, padded with leading zeros to `digits` characters.
    static func decimal(_ binary: UInt32, digits: Int) -> String {
        var modulus: UInt32 = 1
        for _ in 0..<digits { modulus *= 10 }
        let text = String(binary % modulus)
        return String(repeating: "0", count: digits - text.count) + text
    }
}
