import AutofillWebAuthn
import Crypto
import _CryptoExtras
import Foundation

/// A passkey's private key as KeePassXC stores it (PKCS#8 PEM), of each kind KeePassXC registers:
/// ES256 (P-256), EdDSA (Ed25519) and RS256 (RSA, PKCS#1 v1.5 with SHA-256). Never printed.
enum KeePassPasskeyKey: CustomStringConvertible {
    case es256(P256.Signing.PrivateKey)
    case edDSA(Curve25519.Signing.PrivateKey)
    case rs256(_RSA.Signing.PrivateKey)

    /// PKCS#8's prefix of an Ed25519 private key (RFC 8410), before its 32 bytes.
    static let ed25519Prefix: [UInt8] = [0x30, 0x2E, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20]

    /// The key in `pem`; nil when it is none of the three.
    init?(pem: String) {
        if let key = try? P256.Signing.PrivateKey(pemRepresentation: pem) {
            self = .es256(key)
        } else if let der = Self.der(pem), der.count == Self.ed25519Prefix.count + 32, Array(der.prefix(Self.ed25519Prefix.count)) == Self.ed25519Prefix,
                  let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: der.suffix(32)) {
            self = .edDSA(key)
        } else if let key = try? _RSA.Signing.PrivateKey(pemRepresentation: pem) {
            self = .rs256(key)
        } else {
            return nil
        }
    }

    /// The DER bytes of a `PRIVATE KEY` PEM block.
    private static func der(_ pem: String) -> [UInt8]? {
        let lines = pem.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        guard lines.first == "-----BEGIN PRIVATE KEY-----", lines.last == "-----END PRIVATE KEY-----" else { return nil }
        return Data(base64Encoded: lines.dropFirst().dropLast().joined()).map { [UInt8]($0) }
    }

    /// The signature over `data` in WebAuthn's form for the key's algorithm (ES256: DER; EdDSA: the
    /// 64 raw bytes; RS256: PKCS#1 v1.5).
    func sign(_ data: [UInt8]) throws -> [UInt8] {
        switch self {
        case .es256(let key): Array(try key.signature(for: data).derRepresentation)
        case .edDSA(let key): Array(try key.signature(for: data))
        case .rs256(let key): Array(try key.signature(for: data, padding: .insecurePKCS1v1_5).rawRepresentation)
        }
    }

    var description: String {
        switch self {
        case .es256: "ES256 key <REDACTED>"
        case .edDSA: "EdDSA key <REDACTED>"
        case .rs256: "RS256 key <REDACTED>"
        }
    }
}
