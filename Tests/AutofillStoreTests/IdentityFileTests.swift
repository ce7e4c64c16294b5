import AutofillCore
import AutofillStore
import Testing

/// The identities JSON file: every kind reads, and bad files are refused naming line and field.
struct IdentityFileTests {
    static let valid = """
        {
          "identities": [
            { "kind": "password", "serviceIdentifier": { "identifier": "example.com", "type": "domain" },
              "user": "alice", "recordIdentifier": "r1", "rank": 2 },
            { "kind": "passkey", "relyingPartyIdentifier": "example.com", "userName": "bob",
              "credentialID": "AQID", "userHandle": "BA" },
            { "kind": "oneTimeCode", "serviceIdentifier": { "identifier": "https://example.com/login", "type": "URL" },
              "label": "carol \\u00e9" }
          ]
        }
        """

    @Test func everyKindReads() throws {
        let identities = try IdentityFile.decode(Array(Self.valid.utf8))
        #expect(identities == [
            .password(.init(serviceIdentifier: .init(identifier: "example.com", type: .domain), user: "alice", recordIdentifier: "r1", rank: 2)),
            .passkey(.init(relyingPartyIdentifier: "example.com", userName: "bob", credentialID: [1, 2, 3], userHandle: [4])),
            .oneTimeCode(.init(serviceIdentifier: .init(identifier: "https://example.com/login", type: .url), label: "carol é")),
        ])
    }

    @Test func entriesRoundTripThroughTheListFormat() throws {
        let identities = try IdentityFile.decode(Array(Self.valid.utf8))
        let entries = identities.map(IdentityFile.Entry.init)
        #expect(entries.map(\.kind) == ["password", "passkey", "oneTimeCode"])
        #expect(entries[1].credentialID == "AQID")
    }

    @Test(arguments: [
        ("{ \"identities\": [ { \"kind\": \"password\", \"user\": \"a\" } ] }",
         "line 1: identities[0].serviceIdentifier: missing: give { \"identifier\": \"example.com\", \"type\": \"domain\" }"),
        ("{\n \"identities\": [\n  { \"kind\": \"pasword\" }\n ]\n}", "line 3: identities[0].kind: \"pasword\" is not a kind; use \"password\", \"passkey\" or \"oneTimeCode\""),
        ("{\n \"identities\": [\n  { \"kind\": \"passkey\", \"relyingPartyIdentifier\": \"x.test\", \"userName\": \"u\",\n    \"credentialID\": \"not base64!\", \"userHandle\": \"AQ\" }\n ]\n}",
         "line 4: identities[0].credentialID: not base64url text (A–Z, a–z, 0–9, '-' and '_')"),
        ("{ \"identities\": [ { \"kind\": \"password\", \"serviceIdentifier\": { \"identifier\": \"a.test\", \"type\": \"domain\" }, \"user\": \"u\", \"usre\": 1 } ] }",
         "line 1: identities[0].usre: unknown field; the fields here are kind, rank, recordIdentifier, serviceIdentifier, user"),
        ("{ \"identities\": [ { \"kind\": \"password\", \"serviceIdentifier\": { \"identifier\": \"a.test\", \"type\": \"url\" }, \"user\": \"u\" } ] }",
         "line 1: identities[0].serviceIdentifier.type: \"url\" is not a type; use \"domain\" or \"URL\""),
        ("{ \"identities\": [ { \"kind\": \"password\", \"serviceIdentifier\": { \"identifier\": \"a.test\", \"type\": \"domain\" }, \"user\": \"u\", \"rank\": 1.5 } ] }",
         "line 1: identities[0].rank: expected a whole number, found a number"),
        ("{ \"identities\": [\n  { \"kind\": \"password\",\n    \"serviceIdentifier\": { \"identifier\": \"a.test\", \"type\": \"domain\" },\n    \"user\": 42 } ] }",
         "line 4: identities[0].user: expected a string, found a number"),
        ("{ \"identities\": [ ] ", "line 1, column 21: the file ends inside an object"),
        ("{ \"identities\": [ {}, ] }", "line 1, column 23: unexpected character ']'"),
        ("[]", "line 1: expected an object with an \"identities\" array, found an array"),
        ("{ \"identitys\": [] }", "line 1: identitys: unknown field; the fields here are identities"),
        ("{ \"identities\": [\n {\"kind\": \"passkey\", \"relyingPartyIdentifier\": \"x.test\", \"userName\": \"u\", \"credentialID\": \"\", \"userHandle\": \"AQ\"} ] }",
         "line 2: identities[0]: the credential id is empty"),
    ])
    func badFilesAreRefusedNamingLineAndField(text: String, message: String) {
        #expect {
            try IdentityFile.decode(Array(text.utf8))
        } throws: { error in
            "\(error)" == message
        }
    }

    @Test func invalidUTF8IsRefused() {
        #expect(throws: IdentityFile.Problem.self) { try IdentityFile.decode([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D]) }
    }
}
