import AutofillCore
import AutofillWebAuthn
import Crypto
import Foundation
import Testing
@testable import VaultCore

/// Passkey entries: persistence in the vault file, payload compatibility, and the WebAuthn data they make.
struct PasskeyEntryTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
    }

    static func alicePasskey() throws -> PasskeyEntry {
        try PasskeyEntry.generate(id: "pk-1", relyingParty: "example.com", userName: "alice", userHandle: Array("user-alice".utf8),
                                  created: 1_800_000_000)
    }

    @Test func aPasskeyIsSavedAndReadBackWithItsIdentity() throws {
        let passkey = try Self.alicePasskey()
        var vault = try Fixture.vault(in: folder)
        try vault.contents.add(.passkey(passkey))
        try vault.save()
        let opened = try Vault.open(at: vault.path, password: Fixture.password)
        #expect(opened.contents.passkeys == [passkey])
        #expect(opened.contents.passkey(relyingParty: "example.com", credentialID: passkey.credentialID) == passkey)
        #expect(opened.contents.passkey(relyingParty: "example.org", credentialID: passkey.credentialID) == nil)
        #expect(passkey.credentialID.count == 32)
        #expect(VaultEntry.passkey(passkey).identity == .passkey(PasskeyCredentialIdentity(
            relyingPartyIdentifier: "example.com", userName: "alice", credentialID: passkey.credentialID,
            userHandle: Array("user-alice".utf8), recordIdentifier: "pk-1", rank: 0)))
        #expect(opened.contents.identities.count == 4)  // two logins, a code, the passkey
        let text = String(decoding: try bytes(of: vault.path), as: UTF8.self)
        #expect(!text.contains(passkey.privateKey.revealed) && !text.contains("alice"))
    }

    @Test func thePayloadFormIsDocumentedJSON() throws {
        let passkey = try Self.alicePasskey()
        let json = String(decoding: try VaultContents(entries: [.passkey(passkey)]).encoded(), as: UTF8.self)
        let expected = #"{"entries":[{"created":1800000000,"credentialID":"\#(Base64URL.encode(passkey.credentialID))","id":"pk-1","kind":"passkey","#
            + #""privateKey":"\#(passkey.privateKey.revealed)","rank":0,"relyingParty":"example.com","signCount":0,"#
            + #""userHandle":"dXNlci1hbGljZQ","userName":"alice"}],"version":1}"#
        #expect(json == expected)
    }

    @Test func anOlderReleaseKeepsAPasskeyAsAnUnknownEntryAndWritesItBackUnchanged() throws {
        // An older release decodes the entry into UnknownEntry's raw JSON (the kind is new to it) and
        // re-encodes that raw JSON on its next save; this release must read the result as the same passkey.
        var passkey = try Self.alicePasskey()
        passkey.signCount = 41
        let written = try VaultContents(entries: [.passkey(passkey), .password(Fixture.alice)]).encoded()
        struct OldPayload: Codable { var version: Int; var entries: [JSONValue] }
        let asOlderReleaseSeesIt = try JSONDecoder().decode(OldPayload.self, from: Data(written))
        let rewrittenByOlderRelease = try JSONEncoder().encode(asOlderReleaseSeesIt)
        let again = try VaultContents.decode(rewrittenByOlderRelease, path: "test")
        #expect(again.passkeys == [passkey])
        #expect(again.passwords == [Fixture.alice])
        // And an older release's reader path itself: the unknown-kind fallback keeps every field.
        let unknown = UnknownEntry(kind: "passkey", id: "pk-1", raw: asOlderReleaseSeesIt.entries[0])
        #expect(try VaultContents.decode(Data(try VaultContents(entries: [.unknown(unknown)]).encoded()), path: "t").passkeys == [passkey])
    }

    @Test func aMalformedPasskeyNamesTheFieldNotTheValue() throws {
        let payload = #"{"version":1,"entries":[{"kind":"passkey","id":"pk","relyingParty":"example.com","userName":"a","userHandle":"AQ","credentialID":"not base64!","privateKey":"c2VjcmV0","created":0}]}"#
        #expect(throws: VaultError(.corrupt, "the vault test decrypted, but an entry is malformed: bad value at entries.Index 0.credentialID")) {
            try VaultContents.decode(Data(payload.utf8), path: "test")
        }
    }

    @Test func thePrivateKeyNeverPrints() throws {
        let passkey = try Self.alicePasskey()
        var dumped = ""
        dump(VaultEntry.passkey(passkey), to: &dumped)
        for text in ["\(passkey)", String(reflecting: passkey), "\(VaultEntry.passkey(passkey))", dumped] {
            #expect(!text.contains(passkey.privateKey.revealed))
        }
        #expect("\(passkey)" == "PasskeyEntry(id: pk-1, relyingParty: example.com, userName: alice, signCount: 0, privateKey: <REDACTED>)")
    }

    @Test func generateChecksWhatTheRelyingPartyGave() throws {
        #expect(throws: VaultError(.invalidInput, "the user handle has 65 bytes; WebAuthn needs 1 to 64")) {
            try PasskeyEntry.generate(relyingParty: "example.com", userName: "a", userHandle: Array(repeating: 1, count: 65))
        }
        #expect(throws: VaultError(.invalidInput, "the user handle has 0 bytes; WebAuthn needs 1 to 64")) {
            try PasskeyEntry.generate(relyingParty: "example.com", userName: "a", userHandle: [])
        }
        #expect(throws: VaultError(.invalidInput, "the relying party id \"https://example.com\" is not a domain like example.com")) {
            try PasskeyEntry.generate(relyingParty: "https://example.com", userName: "a", userHandle: [1])
        }
        #expect(throws: VaultError(.invalidInput, "the passkey's user name is empty: the relying party must name the account")) {
            try PasskeyEntry.generate(relyingParty: "example.com", userName: "", userHandle: [1])
        }
        #expect(try PasskeyEntry.generate(relyingParty: "example.com", userName: "a", userHandle: [1]).credentialID
            != PasskeyEntry.generate(relyingParty: "example.com", userName: "a", userHandle: [1]).credentialID)
    }

    @Test func registrationAndAssertionVerifyWithTheStoredPublicKey() throws {
        var passkey = try Self.alicePasskey()
        let hash = Array(SHA256.hash(data: Array("client data".utf8)))
        let registration = try passkey.registration(clientDataHash: hash, userPresent: true, userVerified: false)
        let parsed = try AttestationObject.parse(registration.attestationObject)
        #expect(parsed.format == "none")
        #expect(parsed.authenticatorData.flags == [.userPresent, .backupEligible, .attestedCredentialData])
        #expect(parsed.authenticatorData.signCount == 0)
        #expect(parsed.authenticatorData.rpIDHash == Array(SHA256.hash(data: Array("example.com".utf8))))
        #expect(parsed.authenticatorData.attestedCredential?.aaguid == AttestedCredentialData.zeroAAGUID)
        #expect(parsed.authenticatorData.attestedCredential?.credentialID == passkey.credentialID)
        let publicKey = try COSEKey.publicKey(from: try #require(parsed.authenticatorData.attestedCredential?.publicKey))

        var contents = VaultContents(entries: [.passkey(passkey)])
        passkey = try contents.countAssertion(ofPasskey: "pk-1")
        #expect(passkey.signCount == 1 && contents.passkeys[0].signCount == 1)
        let assertion = try passkey.assertion(clientDataHash: hash, userPresent: true, userVerified: true)
        let data = try AuthenticatorData(parsing: assertion.authenticatorData)
        #expect(data.flags == [.userPresent, .userVerified, .backupEligible])
        #expect(data.signCount == 1)
        #expect(ES256.verify(signature: assertion.signature, authenticatorData: assertion.authenticatorData, clientDataHash: hash, publicKey: publicKey))
        #expect(assertion.userHandle == Array("user-alice".utf8))
        #expect(assertion.credentialID == passkey.credentialID)

        let silent = try passkey.assertion(clientDataHash: hash, userPresent: false, userVerified: false)
        #expect(try AuthenticatorData(parsing: silent.authenticatorData).flags == .backupEligible)
    }

    @Test func aDamagedKeyIsReportedWithoutTheKey() throws {
        var passkey = try Self.alicePasskey()
        passkey.privateKey = Secret("AAAA")
        #expect(throws: VaultError(.corrupt, "the private key of passkey pk-1 is damaged: it is not a P-256 key; remove the passkey and register a new one")) {
            try passkey.assertion(clientDataHash: Array(repeating: 0, count: 32), userPresent: true, userVerified: false)
        }
    }

    @Test func countingAnAssertionOfAMissingPasskeyFails() {
        var contents = Fixture.contents
        #expect(throws: VaultError(.invalidInput, "no passkey vault-1 in the vault (it was removed meanwhile)")) {
            try contents.countAssertion(ofPasskey: "vault-1")
        }
    }

    @Test func theUnlockedVaultsUpdateKeepsAChangeSavedMeanwhile() throws {
        let vault = try Fixture.vault(in: folder)  // this copy is stale once the companion saves
        var companion = try Vault.open(at: vault.path, password: Fixture.password)
        companion.contents.remove(id: "vault-2")
        try companion.save()
        let passkey = try Self.alicePasskey()
        let outcome = try vault.update(waitingAtMost: 1) { contents in try contents.add(.passkey(passkey)) }
        #expect(outcome.changes.save == [VaultEntry.passkey(passkey).identity!])
        let reopened = try Vault.open(at: vault.path, password: Fixture.password)
        #expect(reopened.contents.passkeys == [passkey])
        #expect(reopened.contents.entry(id: "vault-2") == nil, "the companion's removal is kept")
    }

    @Test func anUpdateThatCannotGetTheLockInTimeIsBusy() throws {
        let vault = try Fixture.vault(in: folder)
        let fd = open(folder.path, O_RDONLY | O_DIRECTORY)
        defer { close(fd) }
        #expect(flock(fd, LOCK_EX) == 0)  // another program holds the write lock
        let start = Date()
        #expect(throws: VaultError(.busy, "the vault \(vault.path) is being changed by another program (autofill-vault?); try again when it is done")) {
            try vault.update(waitingAtMost: 0.2) { contents in contents.remove(id: "vault-1") }
        }
        #expect(Date().timeIntervalSince(start) < 30, "it gave up instead of waiting for the lock, which is held until after this check")
        flock(fd, LOCK_UN)
        #expect(try vault.update(waitingAtMost: 0.2) { contents in contents.remove(id: "vault-1") }.result != nil)
    }
}
