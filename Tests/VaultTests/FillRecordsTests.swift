import AutofillCore
import Foundation
import Testing
@testable import VaultCore

/// Fill records: which logins were handed out recently, kept so they reveal little.
struct FillRecordsTests {
    let folder: TemporaryFolder
    let clock = TestClock()
    var sessionFolder: String { "\(folder.path)/run/autofill" }
    var cache: SessionCache { SessionCache(folder: sessionFolder, now: { [clock] in clock.now }) }

    init() throws {
        folder = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: "\(folder.path)/run", withIntermediateDirectories: true)
    }

    @Test func aFillIsFoundWithItsAge() throws {
        let vault = try Fixture.vault(in: folder)
        #expect(try cache.secondsSinceFill(of: Fixture.alice, in: vault) == nil)
        try cache.recordFill(of: Fixture.alice, in: vault)
        clock.advance(42)
        #expect(try cache.secondsSinceFill(of: Fixture.alice, in: vault) == 42)
        #expect(try cache.secondsSinceFill(of: Fixture.bob, in: vault) == nil)
        try cache.recordFill(of: Fixture.alice, in: vault)
        clock.advance(1)
        #expect(try cache.secondsSinceFill(of: Fixture.alice, in: vault) == 1, "the latest fill counts")
    }

    @Test func theFileIsPrivateAndNamesNoLoginSiteOrUser() throws {
        let vault = try Fixture.vault(in: folder)
        try cache.recordFill(of: Fixture.alice, in: vault)
        let files = try FileManager.default.contentsOfDirectory(atPath: sessionFolder)
        #expect(files.count == 1 && files[0].hasSuffix(".fills"))
        #expect(try mode(of: sessionFolder) == 0o700)
        #expect(try mode(of: "\(sessionFolder)/\(files[0])") == 0o600)
        let text = String(decoding: try bytes(of: "\(sessionFolder)/\(files[0])"), as: UTF8.self)
        for clear in ["alice", "example.com", "vault-1", "domain", vault.path] { #expect(!text.contains(clear)) }
        #expect(text.contains("\"tag\""))
    }

    @Test func aChangedLoginOrAnotherVaultKeyDoesNotMatch() throws {
        let vault = try Fixture.vault(in: folder)
        try cache.recordFill(of: Fixture.alice, in: vault)
        var renamed = Fixture.alice
        renamed.user = "alice2"
        #expect(try cache.secondsSinceFill(of: renamed, in: vault) == nil)
        // The same path recreated (new salt, new key): the old records are noise to it.
        try FileManager.default.removeItem(atPath: vault.path)
        let recreated = try Vault.create(at: vault.path, password: Fixture.password, parameters: Fixture.fast, contents: Fixture.contents)
        #expect(try cache.secondsSinceFill(of: Fixture.alice, in: recreated) == nil)
    }

    @Test func recordsOlderThanTheMaximumWindowAreDropped() throws {
        let vault = try Fixture.vault(in: folder)
        try cache.recordFill(of: Fixture.alice, in: vault)
        clock.advance(Double(SessionCache.maximumFillWindow) + 1)
        #expect(try cache.secondsSinceFill(of: Fixture.alice, in: vault) == nil)
        try cache.recordFill(of: Fixture.bob, in: vault)
        let file = try FileManager.default.contentsOfDirectory(atPath: sessionFolder)[0]
        let text = String(decoding: try bytes(of: "\(sessionFolder)/\(file)"), as: UTF8.self)
        #expect(text.components(separatedBy: "\"tag\"").count == 2, "only bob's record is left")
    }

    @Test func atMostTheNewestRecordsAreKept() throws {
        let vault = try Fixture.vault(in: folder)
        try cache.recordFill(of: Fixture.alice, in: vault)
        for _ in 0..<SessionCache.maximumFillRecords {
            clock.advance(0.5)
            try cache.recordFill(of: Fixture.bob, in: vault)
        }
        #expect(try cache.secondsSinceFill(of: Fixture.alice, in: vault) == nil)
        #expect(try cache.secondsSinceFill(of: Fixture.bob, in: vault) == 0)
    }

    @Test func aDamagedFileIsDroppedAndCountsAsNoFill() throws {
        let vault = try Fixture.vault(in: folder)
        try cache.recordFill(of: Fixture.alice, in: vault)
        let path = "\(sessionFolder)/\(SessionCache.fillsFileName(for: vault.path))"
        try write(Array("not json".utf8), to: path)
        #expect(try cache.secondsSinceFill(of: Fixture.alice, in: vault) == nil)
        #expect(!FileManager.default.fileExists(atPath: path))
        try cache.recordFill(of: Fixture.alice, in: vault)
        #expect(try cache.secondsSinceFill(of: Fixture.alice, in: vault) == 0)
    }

    @Test func lockingForgetsTheFillRecords() throws {
        let vault = try Fixture.vault(in: folder)
        let other = try Fixture.vault(in: folder, name: "other.afvault")
        try cache.recordFill(of: Fixture.alice, in: vault)
        try cache.recordFill(of: Fixture.alice, in: other)
        try cache.remove(for: vault.path)
        #expect(try cache.secondsSinceFill(of: Fixture.alice, in: vault) == nil)
        #expect(try cache.secondsSinceFill(of: Fixture.alice, in: other) == 0)
        try cache.removeAll()
        #expect(try cache.secondsSinceFill(of: Fixture.alice, in: other) == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: sessionFolder).isEmpty)
    }
}
