public import Crypto

/// COSE public keys (RFC 9052/9053) as WebAuthn's attested credential data carries them.
///
/// Only ES256 is implemented: an EC2 key (kty 2) on P-256 (crv 1) with algorithm ECDSA w/ SHA-256 (-7),
/// `{1: 2, 3: -7, -1: 1, -2: x, -3: y}`, x and y 32 bytes each.
public enum COSEKey {
    /// COSE algorithm identifier of ES256 (ECDSA with P-256 and SHA-256).
    public static let es256Algorithm = -7
    /// The algorithms this library can create and verify, in preference order.
    public static let supportedAlgorithms = [es256Algorithm]

    /// COSE map labels.
    enum Label {
        static let keyType = 1, algorithm = 3, curve = -1, x = -2, y = -3
    }

    /// `key` as a COSE_Key map: `{1: 2, 3: -7, -1: 1, -2: x, -3: y}`.
    public static func es256(_ key: P256.Signing.PublicKey) -> CBOR {
        let raw = Array(key.rawRepresentation)  // x ‖ y, 32 bytes each
        return [
            CBOR(Label.keyType): 2, CBOR(Label.algorithm): CBOR(es256Algorithm), CBOR(Label.curve): 1,
            CBOR(Label.x): .bytes(Array(raw[0..<32])), CBOR(Label.y): .bytes(Array(raw[32..<64])),
        ]
    }

    /// The COSE algorithm (label 3) of a COSE key.
    public static func algorithm(of cose: CBOR) throws(WebAuthnError) -> Int {
        guard cose.mapValue != nil else {
            throw WebAuthnError(.malformedCOSEKey, "the COSE key is \(cose.kindDescription), not a map")
        }
        guard let algorithm = cose[Label.algorithm]?.intValue else {
            throw WebAuthnError(.malformedCOSEKey, "the COSE key has no integer algorithm (label 3)")
        }
        return algorithm
    }

    /// The P-256 public key in an ES256 COSE key, checking kty 2, alg -7, crv 1, 32-byte x and y on the curve.
    public static func publicKey(from cose: CBOR) throws(WebAuthnError) -> P256.Signing.PublicKey {
        let algorithm = try algorithm(of: cose)
        guard algorithm == es256Algorithm else {
            throw WebAuthnError(.unsupportedAlgorithm, "the COSE key's algorithm is \(algorithm); only ES256 (-7) is supported")
        }
        guard cose[Label.keyType] == 2 else {
            throw WebAuthnError(.malformedCOSEKey, "the ES256 COSE key's key type (label 1) is \(cose[Label.keyType]?.description ?? "missing"), expected 2 (EC2)")
        }
        guard cose[Label.curve] == 1 else {
            throw WebAuthnError(.malformedCOSEKey, "the ES256 COSE key's curve (label -1) is \(cose[Label.curve]?.description ?? "missing"), expected 1 (P-256)")
        }
        guard let x = cose[Label.x]?.bytesValue, x.count == 32, let y = cose[Label.y]?.bytesValue, y.count == 32 else {
            throw WebAuthnError(.malformedCOSEKey, "the ES256 COSE key's x (label -2) and y (label -3) must be 32-byte byte strings")
        }
        do {
            return try P256.Signing.PublicKey(rawRepresentation: x + y)
        } catch {
            throw WebAuthnError(.malformedCOSEKey, "the ES256 COSE key's point (x, y) is not on the P-256 curve")
        }
    }

    /// The DER `SubjectPublicKeyInfo` of an ES256 COSE key (WebAuthn's `getPublicKey()`).
    public static func subjectPublicKeyInfo(from cose: CBOR) throws(WebAuthnError) -> [UInt8] {
        Array(try publicKey(from: cose).derRepresentation)
    }
}
