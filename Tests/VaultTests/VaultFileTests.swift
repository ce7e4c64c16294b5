import AutofillCore
import Foundation
import Testing
@testable import VaultCore

/// The encrypted vault file: round trips, refusals, and what a failed write leaves.
struct VaultFileTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
    }

    @Test func aVaultOpensWithItsPasswordAndHoldsWhatWasSaved() throws {
        var vault = try Fixture.vault(in: folder)
        let opened = try Vault.open(at: vault.path, password: Fixture.password)
        #expect(opened.contents == Fixture.contents)
        #expect(opened.header.keyDerivation == .scrypt(Fixture.fast))
        #expect(opened.header.salt.count == 16)

        vault.contents.remove(id: "vault-2")
        try vault.save()
        #expect(try Vault.open(at: vault.path, password: Fixture.password).contents.passwords == [Fixture.alice])
    }

    @Test func theFileIsPrivateAndDoesNotContainTheSecretsInTheClear() throws {
        let vault = try Fixture.vault(in: folder)
        #expect(try mode(of: vault.path) == 0o600)
        let text = String(decoding: try bytes(of: vault.path), as: UTF8.self)
        #expect(text.hasPrefix("AFVAULT"))
        for secret in ["alice-secret-1", "JBSWY3DPEHPK3PXP", "1 Main Street", "alice"] {
            #expect(!text.contains(secret))
        }
    }

    @Test func everySaveUsesANewNonceUnderTheSameSalt() throws {
        var vault = try Fixture.vault(in: folder)
        let first = try bytes(of: vault.path)
        try vault.save()
        let second = try bytes(of: vault.path)
        #expect(first[14..<30] == second[14..<30])  // salt
        #expect(first[30..<42] != second[30..<42])  // nonce
        #expect(first[42...] != second[42...])
    }

    @Test func aWrongPasswordIsRefusedHonestly() throws {
        let vault = try Fixture.vault(in: folder)
        #expect(throws: VaultError.wrongPasswordOrModified(vault.path)) {
            try Vault.open(at: vault.path, password: Secret("Correct horse battery staple"))
        }
        #expect(VaultError.wrongPasswordOrModified(vault.path).message
            == "cannot open the vault \(vault.path): wrong master password, or the vault file was changed")
    }

    @Test(arguments: [
        ("ciphertext", 50), ("last ciphertext byte", -17), ("tag", -1), ("salt", 20), ("nonce", 35), ("scrypt r", 11),
    ])
    func changingAnyAuthenticatedByteFailsToOpen(_ what: String, _ offset: Int) throws {
        let vault = try Fixture.vault(in: folder)
        var file = try bytes(of: vault.path)
        let index = offset >= 0 ? offset : file.count + offset
        file[index] ^= what == "scrypt r" ? 0x01 : 0x40
        try write(file, to: vault.path)
        #expect(throws: VaultError.wrongPasswordOrModified(vault.path), "changed \(what)") {
            try Vault.open(at: vault.path, password: Fixture.password)
        }
    }

    @Test func aDamagedHeaderIsReportedAsSuch() throws {
        let vault = try Fixture.vault(in: folder)
        let original = try bytes(of: vault.path)

        var file = original
        file[0] = UInt8(ascii: "X")
        try write(file, to: vault.path)
        #expect(throws: VaultError(.corrupt, "\(vault.path) is not an autofill vault (it does not start with AFVAULT); check the path")) {
            try Vault.open(at: vault.path, password: Fixture.password)
        }

        file = original
        file[8] = 9
        try write(file, to: vault.path)
        #expect(throws: VaultError(.unsupportedVersion, "\(vault.path) is a vault of format version 9; this autofill reads versions 1 and 2: update autofill")) {
            try Vault.open(at: vault.path, password: Fixture.password)
        }

        file = original
        file[10] = 40  // N = 2^40: refused before any memory is asked for
        try write(file, to: vault.path)
        #expect(throws: VaultError(.corrupt, """
            \(vault.path) was not opened: the key derivation in its header, scrypt N=2^40 r=8 p=1 is out of range: N from 2^10, r 1–32, \
            p 1–16, at most 1 GiB of memory. No key was derived; the file is damaged, was changed, or was made by a test build
            """)) {
            try Vault.open(at: vault.path, password: Fixture.password)
        }

        try write(Array(original.prefix(30)), to: vault.path)
        #expect(throws: VaultError(.corrupt, "\(vault.path) is truncated: it ends inside the vault header; restore it from a backup")) {
            try Vault.open(at: vault.path, password: Fixture.password)
        }
    }

    @Test func aMissingVaultAndAnExistingOneAreClearErrors() throws {
        let path = "\(folder.path)/none.afvault"
        #expect(throws: VaultError(.notFound, "\(path) does not exist")) { try Vault.open(at: path, password: Fixture.password) }
        let vault = try Fixture.vault(in: folder)
        #expect(throws: VaultError(.alreadyExists, "\(vault.path) exists already; remove it first or choose another path with --vault")) {
            try Fixture.vault(in: folder)
        }
    }

    @Test func anEmptyMasterPasswordIsRefused() {
        #expect(throws: VaultError(.invalidInput, "the master password is empty")) {
            try Vault.create(at: "\(folder.path)/v", password: Secret(""), parameters: Fixture.fast)
        }
    }

    @Test func aFailedWriteLeavesTheOldVaultAndNoTemporaryFile() throws {
        var vault = try Fixture.vault(in: folder)
        let before = try bytes(of: vault.path)
        vault.contents.remove(id: "vault-1")
        #expect(throws: VaultError.self) { try vault.save(failing: .beforeRename) }
        #expect(try bytes(of: vault.path) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["vault.afvault"])
        #expect(try Vault.open(at: vault.path, password: Fixture.password).contents == Fixture.contents)
    }

    @Test func aCrashBeforeTheRenameLeavesTheOldVaultReadable() throws {
        var vault = try Fixture.vault(in: folder)
        let before = try bytes(of: vault.path)
        vault.contents.remove(id: "vault-1")
        #expect(throws: VaultError.self) { try vault.save(failing: .crashBeforeRename) }
        #expect(try bytes(of: vault.path) == before)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0 != "vault.afvault" }
        #expect(leftovers.count == 1 && leftovers[0].hasPrefix(".vault.afvault.") && leftovers[0].hasSuffix(".tmp"))
        #expect(try Vault.open(at: vault.path, password: Fixture.password).contents == Fixture.contents)
    }

    @Test(.enabled(if: getuid() != 0, "root ignores folder permissions"))
    func aWriteIntoAFolderThatRefusesItLeavesTheOldVault() throws {
        var vault = try Fixture.vault(in: folder)
        let before = try bytes(of: vault.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o500], ofItemAtPath: folder.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: folder.path) }
        #expect(throws: VaultError.self) { try vault.save() }
        #expect(try bytes(of: vault.path) == before)
    }

    @Test func entriesOfAKindThisReleaseDoesNotKnowAreKept() throws {
        let payload = #"{"version":1,"entries":[{"kind":"wifi","id":"wifi-1","rp":"example.com","key":"c2VjcmV0"},{"kind":"text","id":"t","title":"T","text":"x"}]}"#
        let contents = try VaultContents.decode(Data(payload.utf8), path: "test")
        #expect(contents.entries.map(\.kind) == ["wifi", "text"])
        #expect(contents.identities.isEmpty)
        #expect("\(contents.entries[0])" == "UnknownEntry(kind: wifi, id: wifi-1, <REDACTED>)")
        var dumped = ""
        dump(contents, to: &dumped)
        #expect(!dumped.contains("c2VjcmV0") && !dumped.contains("example.com"))
        let again = try VaultContents.decode(Data(try contents.encoded()), path: "test")
        #expect(again == contents)
        #expect(String(decoding: try contents.encoded(), as: UTF8.self).contains(#""rp":"example.com""#))
    }

    @Test func aNewerPayloadVersionIsRefused() {
        #expect(throws: VaultError(.unsupportedVersion, "the vault test holds payload version 2; this autofill reads up to 1: update autofill")) {
            try VaultContents.decode(Data(#"{"version":2,"entries":[]}"#.utf8), path: "test")
        }
    }

    @Test func duplicateAndInvalidIdsAreRefused() {
        var contents = Fixture.contents
        #expect(throws: VaultError(.invalidInput, "an entry with id vault-1 exists already; choose another id or remove it first")) {
            try contents.add(.password(Fixture.alice))
        }
        #expect(throws: VaultError.self) { try contents.add(.text(TextEntry(id: "has space", title: "t", text: Secret("x")))) }
        #expect(throws: VaultError.self) { try contents.add(.text(TextEntry(id: "", title: "t", text: Secret("x")))) }
    }

    @Test func addingManyChecksEveryIdAndAddsAllOrNone() throws {
        var contents = Fixture.contents
        let carol = VaultEntry.password(PasswordEntry(id: "vault-3", service: Fixture.example, user: "carol", password: Secret("c")))
        let note = VaultEntry.text(TextEntry(id: "text-2", title: "Note", text: Secret("n")))
        #expect(throws: VaultError(.invalidInput, "an entry with id vault-1 exists already; choose another id or remove it first")) {
            try contents.add(contentsOf: [carol, .password(Fixture.alice)])
        }
        #expect(throws: VaultError(.invalidInput, "an entry with id vault-3 exists already; choose another id or remove it first")) {
            try contents.add(contentsOf: [carol, note, carol])
        }
        #expect(throws: VaultError.self) { try contents.add(contentsOf: [carol, .text(TextEntry(id: "has space", title: "t", text: Secret("x")))]) }
        #expect(contents == Fixture.contents)
        try contents.add(contentsOf: [carol, note])
        #expect(contents.entries == Fixture.contents.entries + [carol, note])
    }

    @Test(arguments: [
        (String(repeating: "a", count: 128), true), (String(repeating: "a", count: 129), false),
        (String(repeating: "é", count: 128), true), (String(repeating: "é", count: 129), false),
        (String(repeating: "e\u{301}", count: 128), true),  // 384 bytes, 128 characters
        ("a\u{7F}b", false), ("a\tb", false), ("a\u{A0}b", false), ("a\u{85}b", false), ("a\u{2003}b", false),
        ("a\u{3000}b", false), ("ключ-1", true), ("!~", true),
    ])
    func entryIdsAreCheckedByCharactersAndScalars(_ id: String, _ valid: Bool) {
        #expect(((try? VaultContents.checkID(id)) != nil) == valid, "\(id.unicodeScalars.map { String($0.value, radix: 16) })")
    }
}
