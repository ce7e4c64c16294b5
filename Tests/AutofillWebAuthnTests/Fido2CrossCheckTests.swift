import AutofillWebAuthn
import Crypto
import Foundation
import Testing

/// What the library builds, read and verified by Yubico's python-fido2 (`fido2_check.py` beside
/// this file): its parsers, its COSE key's `verify`, its relying-party server's `register_complete`
/// and `authenticate_complete`, and its canonical CBOR encoder.
struct Fido2CrossCheckTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("fido2_check.py").path

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func clientData(_ type: String, challenge: [UInt8], origin: String) -> [UInt8] {
        Array(#"{"type":"\#(type)","challenge":"\#(base64URL(challenge))","origin":"\#(origin)","crossOrigin":false}"#.utf8)
    }

    /// Runs the script with `request` as JSON on stdin; its JSON answer.
    static func fido2(_ request: [String: Any]) throws -> [String: Any] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script]
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        input.fileHandleForWriting.write(try JSONSerialization.data(withJSONObject: request))
        try input.fileHandleForWriting.close()
        let answer = output.fileHandleForReading.readDataToEndOfFile()
        let problems = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure("fido2_check.py failed (\(process.terminationStatus)); is python-fido2 installed (pip install fido2)? \(problems)")
        }
        guard let object = try JSONSerialization.jsonObject(with: answer) as? [String: Any] else { throw Failure("fido2_check.py wrote no JSON object") }
        return object
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    @Test func fido2AcceptsARegistrationAndTwoAssertions() throws {
        let rp = "example.com", origin = "https://example.com"
        let key = ES256.generateKey()
        var random = SystemRandomNumberGenerator()
        let credentialID = (0..<32).map { _ in UInt8.random(in: 0...255, using: &random) }
        let attested = try AttestedCredentialData(credentialID: credentialID, publicKey: COSEKey.es256(key.publicKey))
        let registrationData = AuthenticatorData(relyingParty: rp, flags: [.userPresent, .userVerified], signCount: 0, attestedCredential: attested)
        let registrationChallenge = (0..<32).map { _ in UInt8.random(in: 0...255, using: &random) }
        let registrationClientData = Self.clientData("webauthn.create", challenge: registrationChallenge, origin: origin)

        var assertions: [[String: Any]] = []
        for (counter, flags) in [(UInt32(1), AuthenticatorFlags.userPresent), (2, [.userPresent, .userVerified])] {
            let challenge = (0..<32).map { _ in UInt8.random(in: 0...255, using: &random) }
            let clientData = Self.clientData("webauthn.get", challenge: challenge, origin: origin)
            let data = AuthenticatorData(relyingParty: rp, flags: flags, signCount: counter).bytes
            let signature = try ES256.sign(authenticatorData: data, clientDataHash: Array(SHA256.hash(data: clientData)), with: key)
            assertions.append([
                "authenticator_data": Self.base64URL(data), "signature": Self.base64URL(signature),
                "client_data_json": Self.base64URL(clientData), "challenge": Self.base64URL(challenge),
            ])
        }
        let cborItems: [CBOR] = [
            COSEKey.es256(key.publicKey),
            [false: 9, "aa": 8, "z": 7, .bytes([0]): 6, -1000: 5, -1: 4, 1000: 3, 100: 2, 10: 1],
            ["fmt": "none", "attStmt": [:], "authData": .bytes(registrationData.bytes)],
            [.text(String(repeating: "k", count: 30)): [1, [2: [3: "deep"]]], 24: .bytes(Array(repeating: 1, count: 300)), -25: 70000],
            [.unsigned(UInt64.max): .negative(UInt64.max), 0: -4_294_967_297],
        ]

        let answer = try Self.fido2([
            "rp_id": rp, "origin": origin,
            "registration": [
                "credential_id": Self.base64URL(credentialID),
                "attestation_object": Self.base64URL(AttestationObject.none(authenticatorData: registrationData)),
                "client_data_json": Self.base64URL(registrationClientData), "challenge": Self.base64URL(registrationChallenge),
            ],
            "assertions": assertions,
            "cbor": cborItems.map { Hex.string($0.encoded()) },
        ])

        #expect(answer["fmt"] as? String == "none")
        #expect((answer["att_stmt"] as? [String: Any])?.isEmpty == true)
        #expect(answer["rp_id_hash_matches"] as? Bool == true)
        #expect(answer["registration_flags"] as? Int == 0x45)  // UP UV AT
        #expect(answer["registration_counter"] as? Int == 0)
        #expect(answer["aaguid"] as? String == String(repeating: "0", count: 32))
        #expect(answer["credential_id"] as? String == Self.base64URL(credentialID))
        #expect(answer["public_key_class"] as? String == "ES256")
        #expect(answer["public_key_alg"] as? Int == -7)
        #expect(answer["public_key_cbor"] as? String == Hex.string(COSEKey.es256(key.publicKey).encoded()))
        let checked = try #require(answer["assertions"] as? [[String: Any]])
        #expect(checked.count == 2)
        #expect(checked.map { $0["counter"] as? Int } == [1, 2])
        #expect(checked.map { $0["flags"] as? Int } == [0x01, 0x05])
        for assertion in checked {
            #expect(assertion["rp_id_hash_matches"] as? Bool == true)
            #expect(assertion["verify"] as? String == "ok")
            #expect((assertion["verify_tampered"] as? String)?.hasPrefix("InvalidSignature") == true)
        }
        #expect(answer["server_register"] as? String == "ok")
        #expect(answer["server_authenticate"] as? [String] == ["ok", "ok"])
        let reencoded = try #require(answer["cbor"] as? [[String: String]])
        #expect(reencoded.map { $0["reencoded"] } == cborItems.map { Hex.string($0.encoded()) })
    }

    @Test func fido2RefusesAnAssertionForAnotherRelyingParty() throws {
        let key = ES256.generateKey()
        let attested = try AttestedCredentialData(credentialID: [1, 2, 3, 4], publicKey: COSEKey.es256(key.publicKey))
        let registrationData = AuthenticatorData(relyingParty: "example.com", flags: .userPresent, signCount: 0, attestedCredential: attested)
        let challenge: [UInt8] = Array(repeating: 7, count: 16)
        let clientData = Self.clientData("webauthn.get", challenge: challenge, origin: "https://example.com")
        let data = AuthenticatorData(relyingParty: "evil.example", flags: .userPresent, signCount: 1).bytes
        let signature = try ES256.sign(authenticatorData: data, clientDataHash: Array(SHA256.hash(data: clientData)), with: key)
        let answer = try Self.fido2([
            "rp_id": "example.com", "origin": "https://example.com",
            "registration": [
                "credential_id": Self.base64URL([1, 2, 3, 4]),
                "attestation_object": Self.base64URL(AttestationObject.none(authenticatorData: registrationData)),
                "client_data_json": Self.base64URL(Self.clientData("webauthn.create", challenge: challenge, origin: "https://example.com")),
                "challenge": Self.base64URL(challenge),
            ],
            "assertions": [[
                "authenticator_data": Self.base64URL(data), "signature": Self.base64URL(signature),
                "client_data_json": Self.base64URL(clientData), "challenge": Self.base64URL(challenge),
            ]],
        ])
        #expect(answer["server_register"] as? String == "ok")
        let checked = try #require((answer["assertions"] as? [[String: Any]])?.first)
        #expect(checked["rp_id_hash_matches"] as? Bool == false)
        #expect(checked["verify"] as? String == "ok")  // the signature itself is fine…
        #expect((answer["server_authenticate"] as? [String])?.first?.contains("Wrong RP ID hash") == true)  // …the server refuses it
    }
}
