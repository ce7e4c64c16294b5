import AutofillCore
import AutofillHost
import AutofillMatching
import Testing

/// The relying party's options JSON and the client data, as `autofill passkey` reads and builds them.
@Suite struct PasskeyOptionsTests {
    static let challenge = "dGhpcy1pcy1hLTMyLWJ5dGUtY2hhbGxlbmdlLXh5eg"

    func request(_ json: String) throws -> PasskeyRequestOptions {
        try PasskeyRequestOptions.parse(Array(json.utf8), source: "options.json")
    }

    func creation(_ json: String) throws -> PasskeyCreationOptions {
        try PasskeyCreationOptions.parse(Array(json.utf8), source: "options.json")
    }

    func expectError(_ fragment: String, _ body: () throws -> Void) {
        #expect {
            try body()
        } throws: { error in
            let message = (error as? WebAuthnRequestError)?.message ?? ""
            if !message.contains(fragment) { Issue.record("\"\(message)\" does not contain \"\(fragment)\"") }
            return message.contains(fragment)
        }
    }

    @Test func readsRequestOptions() throws {
        let options = try request("""
            {"challenge": "\(Self.challenge)", "rpId": "example.com", "timeout": 60000,
             "allowCredentials": [{"type": "public-key", "id": "AQID", "transports": ["internal"]},
                                  {"type": "future-kind", "id": "BAUG"}],
             "userVerification": "required", "extensions": {"credProps": true}, "hints": ["client-device"]}
            """)
        #expect(options.challenge == Array("this-is-a-32-byte-challenge-xyz".utf8))
        #expect(options.relyingPartyID == "example.com")
        #expect(options.allowCredentials == [[1, 2, 3]], "unknown credential types are skipped, as browsers do")
        #expect(options.userVerification == .required)
        #expect(options.extensionsJSON == #"{"credProps":true}"#)
    }

    @Test func acceptsTheNavigatorCredentialsWrapper() throws {
        let options = try request(#"{"publicKey": {"challenge": "\#(Self.challenge)"}, "mediation": "conditional"}"#)
        #expect(options.relyingPartyID == nil)
        #expect(options.allowCredentials.isEmpty)
        #expect(options.userVerification == .preferred)
    }

    @Test func readsCreationOptions() throws {
        let options = try creation("""
            {"rp": {"id": "example.com", "name": "Example"},
             "user": {"id": "dXNlci0x", "name": "alice", "displayName": "Alice"},
             "challenge": "\(Self.challenge)",
             "pubKeyCredParams": [{"type": "public-key", "alg": -8}, {"type": "public-key", "alg": -7}],
             "excludeCredentials": [{"type": "public-key", "id": "AQID"}],
             "authenticatorSelection": {"residentKey": "required", "userVerification": "discouraged"},
             "attestation": "none"}
            """)
        #expect(options.relyingPartyID == "example.com")
        #expect(options.userHandle == Array("user-1".utf8))
        #expect(options.userName == "alice")
        #expect(options.algorithms == [-8, -7])
        #expect(options.excludeCredentials == [[1, 2, 3]])
        #expect(options.userVerification == .discouraged)
    }

    @Test func errorsNameTheLineAndTheField() {
        expectError("options.json:1:") { _ = try request("{\"challenge\": ") }
        expectError("options.json:2: challenge is a number; expected a string") { _ = try request("{\n\"challenge\": 5}") }
        expectError("challenge is missing") { _ = try request("{}") }
        expectError("challenge is 3 bytes") { _ = try request(#"{"challenge": "AQID"}"#) }
        expectError("challenge is not base64url") { _ = try request(#"{"challenge": "not base64!"}"#) }
        expectError("userVerification is \"always\"") { _ = try request(#"{"challenge": "\#(Self.challenge)", "userVerification": "always"}"#) }
        expectError("allowCredentials[0].id is not base64url") {
            _ = try request(#"{"challenge": "\#(Self.challenge)", "allowCredentials": [{"type": "public-key", "id": "%%"}]}"#)
        }
        expectError("expected a JSON object") { _ = try request("[1]") }
        expectError("user is missing") { _ = try creation(#"{"rp": {}, "challenge": "\#(Self.challenge)"}"#) }
        expectError("user.id is 0 bytes") {
            _ = try creation(#"{"rp": {}, "user": {"id": "", "name": "a"}, "challenge": "\#(Self.challenge)"}"#)
        }
        expectError("pubKeyCredParams[0].alg is a string") {
            _ = try creation(#"{"rp": {}, "user": {"id": "AQ", "name": "a"}, "challenge": "\#(Self.challenge)", "pubKeyCredParams": [{"type": "public-key", "alg": "ES256"}]}"#)
        }
    }

    @Test func clientDataIsWhatBrowsersSerialize() throws {
        let origin = try WebAuthnOrigin("https://login.example.com")
        let ceremony = try PasskeyCeremony(kind: .get, origin: origin, requestedRelyingParty: "example.com", challenge: [1, 2, 3, 250])
        #expect(String(decoding: ceremony.clientDataJSON!, as: UTF8.self)
            == #"{"type":"webauthn.get","challenge":"AQID-g","origin":"https://login.example.com","crossOrigin":false}"#)
        #expect(ceremony.clientDataHash == PasskeyCeremony.sha256(ceremony.clientDataJSON!))
        #expect(ceremony.relyingParty == "example.com")

        let given = [UInt8](repeating: 9, count: 32)
        let hashed = try PasskeyCeremony(kind: .create, origin: origin, requestedRelyingParty: nil, challenge: [], clientDataHash: given)
        #expect(hashed.clientDataJSON == nil && hashed.clientDataHash == given && hashed.relyingParty == "login.example.com")
        #expect(throws: WebAuthnRequestError.self) {
            try PasskeyCeremony(kind: .get, origin: origin, requestedRelyingParty: nil, challenge: [], clientDataHash: [1])
        }
    }
}
