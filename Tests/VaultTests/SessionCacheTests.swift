import AutofillCore
import Foundation
import Synchronization
import Testing
@testable import VaultCore

/// The unlocked-session cache shared by separate processes.
struct SessionCacheTests {
    let folder: TemporaryFolder
    let clock = TestClock()
    var sessionFolder: String { "\(folder.path)/run/autofill" }
    var cache: SessionCache { SessionCache(folder: sessionFolder, now: { [clock] in clock.now }) }

    init() throws {
        folder = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: "\(folder.path)/run", withIntermediateDirectories: true)
    }

    @Test func anUnlockedVaultOpensFromTheCacheUntilItExpires() throws {
        let vault = try Fixture.vault(in: folder)
        #expect(try cache.unlockedVault(at: vault.path) == nil)
        try cache.store(vault, timeout: 300)
        #expect(try cache.unlockedVault(at: vault.path)?.contents == Fixture.contents)
        clock.advance(299)
        #expect(try cache.unlockedVault(at: vault.path) != nil)
        clock.advance(2)
        #expect(try cache.unlockedVault(at: vault.path) == nil)
        #expect(try sessionFiles().isEmpty, "an expired session is deleted")
    }

    @Test func theReadersMaximumAgeShortensASession() throws {
        let vault = try Fixture.vault(in: folder)
        try cache.store(vault, timeout: 300)
        clock.advance(61)
        #expect(try cache.unlockedVault(at: vault.path, maximumAge: 60) == nil)
        #expect(try cache.unlockedVault(at: vault.path) == nil, "and it was deleted")
    }

    @Test func theFolderIs0700AndTheFile0600() throws {
        let vault = try Fixture.vault(in: folder)
        try cache.store(vault, timeout: 300)
        #expect(try mode(of: sessionFolder) == 0o700)
        let files = try sessionFiles()
        #expect(files.count == 1)
        #expect(try mode(of: "\(sessionFolder)/\(files[0])") == 0o600)
        let text = String(decoding: try bytes(of: "\(sessionFolder)/\(files[0])"), as: UTF8.self)
        #expect(text.contains(SessionCache.canonicalPath(vault.path)))
        #expect(!text.contains("alice"))
    }

    @Test func anotherVaultOrANewSaltDoesNotUseTheSession() throws {
        let vault = try Fixture.vault(in: folder)
        try cache.store(vault, timeout: 300)
        let other = try Fixture.vault(in: folder, name: "other.afvault")
        #expect(try cache.unlockedVault(at: other.path) == nil)

        // The same path, recreated with a new salt: the old session must not apply.
        try FileManager.default.removeItem(atPath: vault.path)
        _ = try Vault.create(at: vault.path, password: Fixture.password, parameters: Fixture.fast)
        #expect(try cache.unlockedVault(at: vault.path) == nil)
        #expect(try sessionFiles().isEmpty)
    }

    @Test func aSessionFileOpenToOthersIsDeleted() throws {
        let vault = try Fixture.vault(in: folder)
        try cache.store(vault, timeout: 300)
        let file = "\(sessionFolder)/\(try sessionFiles()[0])"
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
        #expect(try cache.unlockedVault(at: vault.path) == nil)
        #expect(!FileManager.default.fileExists(atPath: file))
    }

    @Test func aGarbledSessionFileIsDeleted() throws {
        let vault = try Fixture.vault(in: folder)
        try cache.store(vault, timeout: 300)
        let file = "\(sessionFolder)/\(try sessionFiles()[0])"
        try write(Array("not json".utf8), to: file)
        #expect(try cache.unlockedVault(at: vault.path) == nil)
        #expect(!FileManager.default.fileExists(atPath: file))
    }

    @Test func aSymlinkedFolderIsRefused() throws {
        let vault = try Fixture.vault(in: folder)
        let elsewhere = "\(folder.path)/elsewhere"
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try FileManager.default.createSymbolicLink(atPath: sessionFolder, withDestinationPath: elsewhere)
        #expect(throws: VaultError.self) { try cache.store(vault, timeout: 300) }
        #expect(throws: VaultError.self) { try cache.unlockedVault(at: vault.path) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere).isEmpty)
    }

    @Test func aFolderOpenToOthersIsRefused() throws {
        let vault = try Fixture.vault(in: folder)
        try FileManager.default.createDirectory(atPath: sessionFolder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: sessionFolder)
        #expect(throws: VaultError(.unsafeSessionFolder,
                                   "the session folder \(sessionFolder) is open to other users (mode 755); run chmod 700 \(sessionFolder)")) {
            try cache.store(vault, timeout: 300)
        }
    }

    @Test func lockEndsTheSessionAndATimeoutOfZeroKeepsNothing() throws {
        let vault = try Fixture.vault(in: folder)
        try cache.store(vault, timeout: 300)
        #expect(try cache.remove(for: vault.path))
        #expect(try cache.unlockedVault(at: vault.path) == nil)
        #expect(try !cache.remove(for: vault.path))
        try cache.store(vault, timeout: 0)
        #expect(try cache.unlockedVault(at: vault.path) == nil)
    }

    @Test func lockingAllEndsEverySessionAndRemovesLegacyFillRecords() throws {
        let first = try Fixture.vault(in: folder)
        let second = try Fixture.vault(in: folder, name: "second.afvault")
        try cache.store(first, timeout: 300)
        try cache.store(second, timeout: 300)
        // A fill-records file an earlier version kept next to the session.
        try Data("{}".utf8).write(to: URL(fileURLWithPath: "\(sessionFolder)/\(SessionCache.fillsFileName(for: first.path))"))
        #expect(try cache.removeAll() == 2)
        #expect(try FileManager.default.contentsOfDirectory(atPath: sessionFolder).isEmpty)
        #expect(try cache.unlockedVault(at: first.path) == nil)
        #expect(try cache.unlockedVault(at: second.path) == nil)
        #expect(try cache.removeAll() == 0)
    }

    @Test func lockingAllWithoutFillRecordsCountsTheSessions() throws {
        try cache.store(try Fixture.vault(in: folder), timeout: 300)
        #expect(try cache.removeAll() == 1)
        #expect(try sessionFiles().isEmpty)
    }

    @Test func storingDeletesExpiredSessionsOfOtherVaults() throws {
        let first = try Fixture.vault(in: folder)
        let second = try Fixture.vault(in: folder, name: "second.afvault")
        try cache.store(first, timeout: 10)
        clock.advance(20)
        try cache.store(second, timeout: 300)
        #expect(try sessionFiles().count == 1)
    }

    @Test func theStandardFolderIsTheVaultsPrivateRuntimeFolderAndNeverOneOnDisk() throws {
        #expect(SessionCache.standardFolder(environment: ["XDG_RUNTIME_DIR": "/run/user/1000"]) == "/run/user/1000/autofill/providers/org.autofill.vault")
        #expect(SessionCache.standardFolder(environment: ["XDG_RUNTIME_DIR": "relative"]) == "")
        #expect(SessionCache.standardFolder(environment: [:]) == "")
        // Without one: nothing is kept, and storing says why.
        let cache = SessionCache.standard(environment: [:])
        #expect(!cache.isAvailable)
        let vault = try Fixture.vault(in: folder)
        let error = try #require(throws: VaultError.self) { try cache.store(vault, timeout: 60) }
        #expect(error.message.contains("XDG_RUNTIME_DIR is not set"))
        #expect(try cache.unlockedVault(at: vault.path) == nil)
    }

    @Test func theCachedKeyNeverPrints() throws {
        let vault = try Fixture.vault(in: folder)
        #expect("\(vault.key)" == "<REDACTED>")
        #expect(String(reflecting: vault.key) == "VaultKey(<REDACTED>)")
        var dumped = ""
        dump(vault.key, to: &dumped)
        #expect(!dumped.contains(vault.key.bytes.map { String($0) }.joined(separator: ", ")))
    }

    private func sessionFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: sessionFolder).filter { $0.hasSuffix(".session") }
    }
}

/// A clock the test moves.
final class TestClock: Sendable {
    private let time = Mutex<Double>(1_800_000_000)

    var now: Double { time.withLock { $0 } }

    func advance(_ seconds: Double) { time.withLock { $0 += seconds } }
}
