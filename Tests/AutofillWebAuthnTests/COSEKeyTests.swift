import AutofillWebAuthn
import Crypto
import Testing

/// ES256 COSE keys: layout, round trip, SPKI, and refusals naming the field.
struct COSEKeyTests {
    @Test func es256KeyHasWebAuthnsLayout() throws {
        let key = P256.Signing.PrivateKey().publicKey
        let cose = COSEKey.es256(key)
        let raw = Array(key.rawRepresentation)
        #expect(cose[1] == 2)
        #expect(cose[3] == -7)
        #expect(cose[-1] == 1)
        #expect(cose[-2]?.bytesValue == Array(raw[0..<32]))
        #expect(cose[-3]?.bytesValue == Array(raw[32...]))
        #expect(cose.mapValue?.count == 5)
        #expect(Hex.string(Array(cose.encoded().prefix(10))) == "a5010203262001215820")
    }

    @Test func roundTripsThroughCBORBytes() throws {
        for _ in 0..<20 {
            let key = P256.Signing.PrivateKey().publicKey
            let decoded = try CBOR.decode(COSEKey.es256(key).encoded(), requireCanonical: true)
            #expect(try COSEKey.publicKey(from: decoded).rawRepresentation == key.rawRepresentation)
            #expect(try COSEKey.algorithm(of: decoded) == -7)
            #expect(try COSEKey.subjectPublicKeyInfo(from: decoded) == Array(key.derRepresentation))
        }
    }

    @Test func subjectPublicKeyInfoIsP256DER() throws {
        let spki = try COSEKey.subjectPublicKeyInfo(from: COSEKey.es256(P256.Signing.PrivateKey().publicKey))
        #expect(spki.count == 91)
        // SEQUENCE { SEQUENCE { id-ecPublicKey, prime256v1 }, BIT STRING 04 ‖ x ‖ y }
        #expect(Hex.string(Array(spki.prefix(27))) == "3059301306072a8648ce3d020106082a8648ce3d030107034200" + "04")
    }

    struct Refusal: Sendable, CustomTestStringConvertible {
        let key: CBOR
        let code: WebAuthnError.Code
        let message: String
        var testDescription: String { message }
    }

    static let refusals: [Refusal] = {
        let good = COSEKey.es256(P256.Signing.PrivateKey().publicKey)
        func with(_ label: Int, _ value: CBOR?) -> CBOR {
            var map = good.mapValue!
            map[CBOR(label)] = value
            return .map(map)
        }
        let x = good[-2]!
        return [
            Refusal(key: .bytes([1]), code: .malformedCOSEKey, message: "the COSE key is a byte string, not a map"),
            Refusal(key: with(3, nil), code: .malformedCOSEKey, message: "the COSE key has no integer algorithm (label 3)"),
            Refusal(key: with(3, "ES256"), code: .malformedCOSEKey, message: "the COSE key has no integer algorithm (label 3)"),
            Refusal(key: with(3, -8), code: .unsupportedAlgorithm, message: "the COSE key's algorithm is -8; only ES256 (-7) is supported"),
            Refusal(key: with(3, -257), code: .unsupportedAlgorithm, message: "the COSE key's algorithm is -257; only ES256 (-7) is supported"),
            Refusal(key: with(1, 1), code: .malformedCOSEKey, message: "the ES256 COSE key's key type (label 1) is 1, expected 2 (EC2)"),
            Refusal(key: with(1, nil), code: .malformedCOSEKey, message: "the ES256 COSE key's key type (label 1) is missing, expected 2 (EC2)"),
            Refusal(key: with(-1, 2), code: .malformedCOSEKey, message: "the ES256 COSE key's curve (label -1) is 2, expected 1 (P-256)"),
            Refusal(key: with(-2, .bytes([1, 2])), code: .malformedCOSEKey,
                    message: "the ES256 COSE key's x (label -2) and y (label -3) must be 32-byte byte strings"),
            Refusal(key: with(-3, nil), code: .malformedCOSEKey,
                    message: "the ES256 COSE key's x (label -2) and y (label -3) must be 32-byte byte strings"),
            Refusal(key: with(-3, x), code: .malformedCOSEKey, message: "the ES256 COSE key's point (x, y) is not on the P-256 curve"),
        ]
    }()

    @Test(arguments: refusals)
    func refusesWithTheFieldNamed(_ refusal: Refusal) {
        #expect(throws: WebAuthnError(refusal.code, refusal.message)) { try COSEKey.publicKey(from: refusal.key) }
    }
}
