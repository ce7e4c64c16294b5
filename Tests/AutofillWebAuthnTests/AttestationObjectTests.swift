import AutofillWebAuthn
import Crypto
import Testing

/// `fmt: "none"` attestation objects, and ES256 assertion signatures.
struct AttestationObjectTests {
    static func registration() throws -> (AuthenticatorData, P256.Signing.PrivateKey) {
        let key = ES256.generateKey()
        let credential = try AttestedCredentialData(credentialID: Array(repeating: 0xAB, count: 16), publicKey: COSEKey.es256(key.publicKey))
        return (AuthenticatorData(relyingParty: "example.com", flags: [.userPresent, .userVerified], signCount: 0, attestedCredential: credential), key)
    }

    @Test func noneAttestationIsCanonicalCBOR() throws {
        let (data, _) = try Self.registration()
        let object = AttestationObject.none(authenticatorData: data)
        let decoded = try CBOR.decode(object, requireCanonical: true)
        #expect(decoded == ["fmt": "none", "attStmt": [:], "authData": .bytes(data.bytes)])
        #expect(Array(object.prefix(20)) == Hex.bytes("a3" + "63666d74" + "646e6f6e65" + "67617474" + "53746d74" + "a0" + "68"))
    }

    @Test func parsesWhatItBuilds() throws {
        let (data, key) = try Self.registration()
        let parsed = try AttestationObject.parse(AttestationObject.none(authenticatorData: data))
        #expect(parsed.format == "none")
        #expect(parsed.authenticatorData == data)
        #expect(parsed.rawAuthenticatorData == data.bytes)
        #expect(try COSEKey.publicKey(from: parsed.authenticatorData.attestedCredential!.publicKey).rawRepresentation == key.publicKey.rawRepresentation)
    }

    @Test func keepsTheRawAuthenticatorDataOfANonCanonicalKey() throws {
        // A COSE key with its labels out of canonical order: parsed, and the raw bytes kept as given.
        let (data, _) = try Self.registration()
        let canonicalKey = data.attestedCredential!.publicKey.encoded()
        let reordered = [0xA5, 0x03, 0x26, 0x01, 0x02] + Array(canonicalKey[5...])
        let raw = Array(data.bytes.dropLast(canonicalKey.count)) + reordered
        let object = CBOR.map(["fmt": "none", "attStmt": [:], "authData": .bytes(raw)]).encoded()
        let parsed = try AttestationObject.parse(object)
        #expect(parsed.rawAuthenticatorData == raw)
        #expect(parsed.authenticatorData.bytes != raw)
        #expect(parsed.authenticatorData == data)
    }

    struct Refusal: Sendable, CustomTestStringConvertible {
        let object: [UInt8]
        let message: String
        var testDescription: String { message }
    }

    static let refusals: [Refusal] = {
        let data = try! registration().0.bytes
        let assertion = AuthenticatorData(relyingParty: "example.com", flags: .userPresent, signCount: 1).bytes
        return [
            Refusal(object: [0xA1], message: "attestation object: invalid CBOR at offset 0: length 1 is more than the 0 bytes left"),
            Refusal(object: CBOR.array([]).encoded(), message: "attestation object: it is an array, not a map"),
            Refusal(object: CBOR.map(["attStmt": [:], "authData": .bytes(data)]).encoded(), message: "attestation object: \"fmt\" is missing or not text"),
            Refusal(object: CBOR.map(["fmt": "none", "authData": .bytes(data)]).encoded(), message: "attestation object: \"attStmt\" is missing or not a map"),
            Refusal(object: CBOR.map(["fmt": "none", "attStmt": [:], "authData": "x"]).encoded(),
                    message: "attestation object: \"authData\" is missing or not a byte string"),
            Refusal(object: CBOR.map(["fmt": "none", "attStmt": ["sig": .bytes([1])], "authData": .bytes(data)]).encoded(),
                    message: "attestation object: fmt \"none\" needs an empty \"attStmt\"; this one has 1 entry"),
            Refusal(object: CBOR.map(["fmt": "none", "attStmt": [:], "authData": .bytes(assertion)]).encoded(),
                    message: "attestation object: its authenticator data has no attested credential data (the AT flag is not set)"),
        ]
    }()

    @Test(arguments: refusals)
    func refusesMalformedObjects(_ refusal: Refusal) {
        #expect(throws: WebAuthnError(.malformedAttestationObject, refusal.message)) { try AttestationObject.parse(refusal.object) }
    }

    @Test func malformedAuthenticatorDataInsideIsReportedAsSuch() {
        let object = CBOR.map(["fmt": "none", "attStmt": [:], "authData": .bytes([1, 2, 3])]).encoded()
        #expect(throws: WebAuthnError(.malformedAuthenticatorData,
                                      "authenticator data: 3 bytes; at least 37 are needed (rpIdHash 32, flags 1, signCount 4)")) {
            try AttestationObject.parse(object)
        }
    }
}

/// ES256 signatures over authenticator data and the client data hash.
struct ES256Tests {
    @Test func signsAuthenticatorDataAndClientDataHash() throws {
        let key = ES256.generateKey()
        let data = AuthenticatorData(relyingParty: "example.com", flags: .userPresent, signCount: 7).bytes
        let hash = Array(SHA256.hash(data: Array("{\"type\":\"webauthn.get\"}".utf8)))
        let signature = try ES256.sign(authenticatorData: data, clientDataHash: hash, with: key)
        #expect(signature.first == 0x30)  // DER SEQUENCE
        #expect(ES256.verify(signature: signature, authenticatorData: data, clientDataHash: hash, publicKey: key.publicKey))
        #expect(try ES256.verify(signature: signature, authenticatorData: data, clientDataHash: hash, coseKey: COSEKey.es256(key.publicKey)))
        // The message is authenticatorData ‖ clientDataHash, checked with swift-crypto directly.
        let parsed = try P256.Signing.ECDSASignature(derRepresentation: signature)
        #expect(key.publicKey.isValidSignature(parsed, for: data + hash))
    }

    @Test func refusesChangedDataOtherKeysAndNonDER() throws {
        let key = ES256.generateKey()
        let data = AuthenticatorData(relyingParty: "example.com", flags: .userPresent, signCount: 7).bytes
        let hash = [UInt8](repeating: 3, count: 32)
        let signature = try ES256.sign(authenticatorData: data, clientDataHash: hash, with: key)
        var changed = data
        changed[32] ^= 0x04  // claim UV afterwards
        #expect(!ES256.verify(signature: signature, authenticatorData: changed, clientDataHash: hash, publicKey: key.publicKey))
        #expect(!ES256.verify(signature: signature, authenticatorData: data, clientDataHash: [UInt8](repeating: 4, count: 32), publicKey: key.publicKey))
        #expect(!ES256.verify(signature: signature, authenticatorData: data, clientDataHash: hash, publicKey: ES256.generateKey().publicKey))
        #expect(!ES256.verify(signature: [0x30, 0x00], authenticatorData: data, clientDataHash: hash, publicKey: key.publicKey))
        #expect(throws: WebAuthnError.self) {
            try ES256.verify(signature: signature, authenticatorData: data, clientDataHash: hash, coseKey: [3: -8])
        }
    }
}
