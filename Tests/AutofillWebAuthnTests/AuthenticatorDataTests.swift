import AutofillWebAuthn
import Crypto
import Testing

/// Building and parsing authenticator data: layout, flags, and every refusal.
struct AuthenticatorDataTests {
    static let rpIDHash = Hex.bytes("a379a6f6eeafb9a55e378c118034e2751e682fab9f2d30ab13d2125586ce1947")  // SHA-256("example.com")

    static func attested(idLength: Int = 32) throws -> AttestedCredentialData {
        try AttestedCredentialData(
            credentialID: (0..<idLength).map { UInt8($0 & 0xFF) }, publicKey: COSEKey.es256(P256.Signing.PrivateKey().publicKey))
    }

    @Test func assertionDataIsHashFlagsAndCounter() throws {
        let data = AuthenticatorData(relyingParty: "example.com", flags: [.userPresent, .userVerified], signCount: 0x0102_0304)
        #expect(data.rpIDHash == Self.rpIDHash)
        #expect(data.bytes == Self.rpIDHash + [0x05, 1, 2, 3, 4])
        #expect(try AuthenticatorData(parsing: data.bytes) == data)
    }

    @Test func registrationDataCarriesTheAttestedCredential() throws {
        let credential = try Self.attested()
        let data = AuthenticatorData(relyingParty: "example.com", flags: [.userPresent, .backupEligible, .backedUp],
                                     signCount: 0, attestedCredential: credential)
        #expect(data.flags == [.userPresent, .backupEligible, .backedUp, .attestedCredentialData])
        let bytes = data.bytes
        #expect(bytes[32] == 0x59)
        #expect(Array(bytes[37..<53]) == AttestedCredentialData.zeroAAGUID)
        #expect(Array(bytes[53..<55]) == [0, 32])
        #expect(Array(bytes[55..<87]) == credential.credentialID)
        #expect(Array(bytes[87...]) == credential.publicKey.encoded())
        let parsed = try AuthenticatorData(parsing: bytes)
        #expect(parsed == data)
        #expect(parsed.attestedCredential?.credentialID == credential.credentialID)
        #expect(try COSEKey.algorithm(of: parsed.attestedCredential!.publicKey) == -7)
    }

    @Test func theInitialiserSetsATAndEDFromWhatIsGiven() throws {
        let bare = AuthenticatorData(relyingParty: "a.example", flags: [.userPresent, .attestedCredentialData, .extensionData], signCount: 1)
        #expect(bare.flags == .userPresent)
        let withExtensions = AuthenticatorData(
            relyingParty: "a.example", flags: [], signCount: 1, attestedCredential: try Self.attested(), extensions: ["credProtect": 1])
        #expect(withExtensions.flags == [.attestedCredentialData, .extensionData])
        let parsed = try AuthenticatorData(parsing: withExtensions.bytes)
        #expect(parsed.extensions?["credProtect"] == 1)
        #expect(parsed == withExtensions)
        let extensionsOnly = AuthenticatorData(relyingParty: "a.example", flags: .userPresent, signCount: 9, extensions: ["x": true])
        #expect(try AuthenticatorData(parsing: extensionsOnly.bytes) == extensionsOnly)
    }

    @Test(arguments: [1, 16, 255, 256, 1023])
    func credentialIDsUpTo1023BytesRoundTrip(_ length: Int) throws {
        let data = AuthenticatorData(relyingParty: "example.com", flags: .userPresent, signCount: 0, attestedCredential: try Self.attested(idLength: length))
        #expect(try AuthenticatorData(parsing: data.bytes).attestedCredential?.credentialID.count == length)
    }

    @Test func flagsPrintByName() {
        #expect(AuthenticatorFlags([.userPresent, .userVerified, .attestedCredentialData]).description == "UP UV AT")
        #expect(AuthenticatorFlags(rawValue: 0xFF).description == "UP UV BE BS AT ED RFU(0x22)")
        #expect(AuthenticatorFlags().description == "none")
    }

    @Test func attestedCredentialDataChecksItsFields() throws {
        let key = COSEKey.es256(P256.Signing.PrivateKey().publicKey)
        #expect(throws: WebAuthnError(.malformedAuthenticatorData, "the credential id has 1024 bytes; it must have 1 to 1023")) {
            try AttestedCredentialData(credentialID: [UInt8](repeating: 1, count: 1024), publicKey: key)
        }
        #expect(throws: WebAuthnError(.malformedAuthenticatorData, "the credential id has 0 bytes; it must have 1 to 1023")) {
            try AttestedCredentialData(credentialID: [], publicKey: key)
        }
        #expect(throws: WebAuthnError(.malformedAuthenticatorData, "the AAGUID has 15 bytes; it must have 16")) {
            try AttestedCredentialData(aaguid: [UInt8](repeating: 0, count: 15), credentialID: [1], publicKey: key)
        }
        #expect(throws: WebAuthnError(.malformedAuthenticatorData, "the credential public key is an integer, not a COSE_Key map")) {
            try AttestedCredentialData(credentialID: [1], publicKey: 5)
        }
    }

    struct Refusal: Sendable, CustomTestStringConvertible {
        let bytes: [UInt8]
        let message: String
        var testDescription: String { message }
    }

    static let refusals: [Refusal] = {
        let head = rpIDHash
        let key = COSEKey.es256(P256.Signing.PrivateKey().publicKey).encoded()
        let aaguid = [UInt8](repeating: 0, count: 16)
        return [
            Refusal(bytes: Array(head.prefix(20)), message: "20 bytes; at least 37 are needed (rpIdHash 32, flags 1, signCount 4)"),
            Refusal(bytes: head + [0x01, 0, 0, 0], message: "36 bytes; at least 37 are needed (rpIdHash 32, flags 1, signCount 4)"),
            Refusal(bytes: head + [0x11, 0, 0, 0, 0], message: "flags UP BS set BS (backed up) without BE (backup eligible)"),
            Refusal(bytes: head + [0x41, 0, 0, 0, 0], message: "the AT flag is set but the 37 bytes end before the AAGUID and credential id length"),
            Refusal(bytes: head + [0x41, 0, 0, 0, 0] + aaguid + [0x04, 0x00] + [UInt8](repeating: 1, count: 1024) + key,
                    message: "credential id length 1024 is more than the 1023 allowed"),
            Refusal(bytes: head + [0x41, 0, 0, 0, 0] + aaguid + [0x00, 0x10] + [1, 2, 3],
                    message: "credential id length 16 is more than the 3 bytes left"),
            Refusal(bytes: head + [0x41, 0, 0, 0, 0] + aaguid + [0x00, 0x00] + key, message: "the credential id has 0 bytes; it must have 1 to 1023"),
            Refusal(bytes: head + [0x41, 0, 0, 0, 0] + aaguid + [0x00, 0x01, 9],
                    message: "the credential public key: invalid CBOR at offset 56: the input ends 1 byte too early"),
            Refusal(bytes: head + [0x41, 0, 0, 0, 0] + aaguid + [0x00, 0x01, 9] + Array(key.dropLast()),
                    message: "the credential public key: invalid CBOR at offset 99: length 32 is more than the 31 bytes left"),
            Refusal(bytes: head + [0x41, 0, 0, 0, 0] + aaguid + [0x00, 0x01, 9] + [0x01],
                    message: "the credential public key is an integer, not a COSE_Key map"),
            Refusal(bytes: head + [0x41, 0, 0, 0, 0] + aaguid + [0x00, 0x01, 9] + [0xA0],
                    message: "the COSE key has no integer algorithm (label 3)"),
            Refusal(bytes: head + [0x41, 0, 0, 0, 0] + aaguid + [0x00, 0x01, 9] + key + [0xA0],
                    message: "1 byte follows the last item the flags (UP AT) announce"),
            Refusal(bytes: head + [0x01, 0, 0, 0, 0] + aaguid, message: "16 bytes follow the signature counter, but neither AT nor ED is set (flags UP)"),
            Refusal(bytes: head + [0x81, 0, 0, 0, 0], message: "the ED flag is set but no extensions follow"),
            Refusal(bytes: head + [0x81, 0, 0, 0, 0, 0x80], message: "the extensions are an array, not a map"),
            Refusal(bytes: head + [0x81, 0, 0, 0, 0, 0xBF, 0xFF], message: "the extensions: invalid CBOR at offset 37: indefinite-length item; CTAP2 CBOR allows definite lengths only"),
            Refusal(bytes: head + [0xC1, 0, 0, 0, 0] + aaguid + [0x00, 0x01, 9] + key,
                    message: "the ED flag is set but no extensions follow"),
        ]
    }()

    @Test(arguments: refusals)
    func refusesMalformedData(_ refusal: Refusal) {
        #expect(throws: WebAuthnError(.malformedAuthenticatorData, "authenticator data: " + refusal.message)) {
            try AuthenticatorData(parsing: refusal.bytes)
        }
    }
}
