import AutofillCore
import Foundation
import Synchronization
import Testing
@testable import VaultCore

/// The provider's memory of its unlocked vault: indexed entries, a file changed on disk read again
/// with the key in memory, a new salt locking, and the timer.
struct VaultMemoryTests {
    let folder: TemporaryFolder
    let events = Events()

    init() throws {
        folder = try TemporaryFolder()
    }

    func memory(timeout: Int) -> VaultMemory {
        VaultMemory(timeout: timeout) { [events] event in events.append(event) }
    }

    @Test func anUnlockedVaultIsServedFromMemoryUntilItsFileChanges() throws {
        let vault = try Fixture.vault(in: folder)
        let memory = memory(timeout: 300)
        #expect(try memory.unlocked(at: vault.path) == nil)
        memory.hold(vault)
        let held = try #require(try memory.unlocked(at: vault.path))
        #expect(held.vault.contents == Fixture.contents)
        #expect(held.vault.stamp == (try FileStamp(path: vault.path)))
        #expect(try memory.unlocked(at: "\(folder.path)/other.afvault") == nil, "another vault is not unlocked")
        #expect(events.all == [.unlocked(seconds: 300)], "nothing was read again")

        // autofill-vault adds an entry: the file is read again with the key in memory.
        let carol = PasswordEntry(id: "vault-9", service: Fixture.example, user: "carol", password: Secret("carol-pw"))
        _ = try Vault.update(at: vault.path, unlock: { try Vault.open(at: $0, password: Fixture.password) }) { try $0.add(.password(carol)) }
        let reread = try #require(try memory.unlocked(at: vault.path))
        #expect(reread.index.password(for: PasswordCredentialIdentity(serviceIdentifier: Fixture.example, user: "carol", recordIdentifier: "vault-9"))
            == carol)
        #expect(events.all.last == .reread)
        #expect(!vault.key.isWiped, "the key stays valid: same salt")
        _ = try memory.unlocked(at: vault.path)
        #expect(events.all.filter { $0 == .reread }.count == 1, "read once per change")
    }

    @Test func aVaultCreatedAnewAtThePathLocksAndZeroesTheKey() throws {
        let vault = try Fixture.vault(in: folder)
        let memory = memory(timeout: 300)
        memory.hold(vault)
        try FileManager.default.removeItem(atPath: vault.path)
        _ = try Vault.create(at: vault.path, password: Fixture.password, parameters: Fixture.fast)
        #expect(try memory.unlocked(at: vault.path) == nil)
        #expect(!memory.isUnlocked)
        #expect(vault.key.isWiped)
        #expect(events.all.last == .locked(.keyChanged))
    }

    @Test func aFileTheKeyNoLongerOpensLocks() throws {
        let vault = try Fixture.vault(in: folder)
        let memory = memory(timeout: 300)
        memory.hold(vault)
        var file = try bytes(of: vault.path)
        file[file.count - 1] ^= 1  // the tag
        try write(file, to: vault.path)
        #expect(try memory.unlocked(at: vault.path) == nil)
        #expect(vault.key.isWiped)
        #expect(events.all.last == .locked(.fileUnusable))
    }

    @Test func aVaultFileThatIsGoneLocksAndSaysSo() throws {
        let vault = try Fixture.vault(in: folder)
        let memory = memory(timeout: 300)
        memory.hold(vault)
        try FileManager.default.removeItem(atPath: vault.path)
        let error = try #require(throws: VaultError.self) { try memory.unlocked(at: vault.path) }
        #expect(error.code == .notFound)
        #expect(!memory.isUnlocked && vault.key.isWiped)
    }

    @Test func theTimerLocksWithoutARequest() async throws {
        let vault = try Fixture.vault(in: folder)
        let memory = memory(timeout: 1)
        memory.hold(vault)
        #expect(memory.isUnlocked)
        try await eventually(within: 30) { !memory.isUnlocked }
        #expect(vault.key.isWiped)
        #expect(vault.key.storage.withUnsafeBytes { $0.allSatisfy { $0 == 0 } })
        #expect(events.all == [.unlocked(seconds: 1), .locked(.timeout)])
        #expect(try memory.unlocked(at: vault.path) == nil)
    }

    @Test func aTimerFiringDuringARequestLocksWhenTheRequestEnds() throws {
        let vault = try Fixture.vault(in: folder)
        let memory = memory(timeout: 1)
        memory.serving {
            memory.hold(vault)
            let deadline = Date().addingTimeInterval(30)
            while !memory.expiredDuringRequest && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
            #expect(memory.expiredDuringRequest, "the timer fired")
            #expect(memory.isUnlocked, "not halfway through a request")
            #expect(!vault.key.isWiped)
        }
        #expect(!memory.isUnlocked)
        #expect(vault.key.isWiped)
        #expect(events.all.last == .locked(.timeout))
    }

    @Test func aTimeoutOfZeroHoldsTheVaultForTheRequestOnly() throws {
        let vault = try Fixture.vault(in: folder)
        let memory = memory(timeout: 0)
        try memory.serving { () throws in
            memory.hold(vault)
            #expect(try memory.unlocked(at: vault.path) != nil)
        }
        #expect(!memory.isUnlocked)
        #expect(vault.key.isWiped)
        #expect(events.all == [.unlocked(seconds: 0), .locked(.requestEnded)])
    }

    @Test func aNewUnlockReplacesTheOldOneAndItsTimer() async throws {
        let first = try Fixture.vault(in: folder)
        let second = try Fixture.vault(in: folder, name: "second.afvault")
        let memory = memory(timeout: 2)
        memory.hold(first)
        try await Task.sleep(for: .seconds(1))
        let replaced = ContinuousClock.now
        memory.hold(second)
        #expect(first.key.isWiped, "the replaced vault's key is zeroed")
        try await eventually(within: 30) { !memory.isUnlocked }
        // A timer never fires early: had the first unlock's timer still counted, it would have
        // locked the second vault about a second after it was unlocked.
        #expect(ContinuousClock.now - replaced >= .seconds(2))
        #expect(second.key.isWiped)
        #expect(events.all.last == .locked(.timeout))
    }

    @Test func aPasskeySavedByTheProviderIsAdoptedWithoutReadingAgain() throws {
        let vault = try Fixture.vault(in: folder)
        let memory = memory(timeout: 300)
        let held = memory.hold(vault)
        let passkey = try PasskeyEntry.generate(relyingParty: "example.com", userName: "alice", userHandle: [1])
        let saved = try held.vault.update(waitingAtMost: 1) { try $0.add(.passkey(passkey)) }
        memory.adopt(saved.vault)
        let now = try #require(try memory.unlocked(at: vault.path))
        #expect(now.index.passkey(relyingParty: "example.com", credentialID: passkey.credentialID) == passkey)
        #expect(!events.all.contains(.reread))
    }

    @Test func lockingZeroesTheKeyAndDropsTheEntries() throws {
        let vault = try Fixture.vault(in: folder)
        let memory = memory(timeout: 300)
        memory.hold(vault)
        memory.lock()
        #expect(!memory.isUnlocked && vault.key.isWiped)
        #expect(events.all.last == .locked(.requested))
        memory.lock()
        #expect(events.all.count == 2, "locking a locked vault does nothing")
    }

    /// Waits until `condition` holds, at most `seconds`.
    func eventually(within seconds: Double, _ condition: () -> Bool) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            guard Date() < deadline else {
                Issue.record("still not so after \(seconds) s")
                return
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }
}

/// The lookups a fill makes, answered from the index as a search in entry order would.
struct VaultIndexTests {
    @Test func lookupsFindTheFirstMatchingEntry() throws {
        let twin = PasswordEntry(id: "vault-7", service: Fixture.example, user: "alice", password: Secret("twin"))
        let passkey = try PasskeyEntry.generate(relyingParty: "example.com", userName: "alice", userHandle: [1])
        var contents = Fixture.contents
        try contents.add(.password(twin))
        try contents.add(.passkey(passkey))
        let index = VaultIndex(contents)
        let example = Fixture.example

        #expect(index.password(for: PasswordCredentialIdentity(serviceIdentifier: example, user: "x", recordIdentifier: "vault-7")) == twin)
        #expect(index.password(for: PasswordCredentialIdentity(serviceIdentifier: example, user: "alice")) == Fixture.alice, "the first added")
        #expect(index.password(for: PasswordCredentialIdentity(serviceIdentifier: example, user: "alice", recordIdentifier: "")) == Fixture.alice)
        #expect(index.password(for: PasswordCredentialIdentity(serviceIdentifier: example, user: "alice", recordIdentifier: "nope")) == nil,
                "a record identifier names one entry: no fallback")
        #expect(index.oneTimeCode(for: OneTimeCodeCredentialIdentity(serviceIdentifier: example, label: "alice", recordIdentifier: "otp-1"))
            == Fixture.code)
        #expect(index.oneTimeCode(for: OneTimeCodeCredentialIdentity(serviceIdentifier: example, label: "alice")) == Fixture.code)
        #expect(index.passkey(relyingParty: "example.com", credentialID: passkey.credentialID) == passkey)
        #expect(index.passkey(relyingParty: "example.org", credentialID: passkey.credentialID) == nil)
        #expect(index.passkeys(relyingParty: "example.com") == [passkey])
        #expect(index.passwords(user: "alice") == [Fixture.alice, twin])
        #expect(index.passwords == contents.passwords && index.texts == contents.texts && index.oneTimeCodes == contents.oneTimeCodes)
    }
}

/// What earlier releases left in the runtime folder is deleted; nothing else is, and nothing is created.
struct LegacySessionFilesTests {
    @Test func sessionFilesAndFillRecordsOfEarlierReleasesAreDeleted() throws {
        let folder = try TemporaryFolder()
        let runtime = "\(folder.path)/run"
        let vaultFolder = LegacySessionFiles.folder(environment: ["XDG_RUNTIME_DIR": runtime])
        #expect(vaultFolder == "\(runtime)/autofill/providers/org.autofill.vault")
        #expect(LegacySessionFiles.folder(environment: ["XDG_RUNTIME_DIR": "relative"]) == "")
        #expect(LegacySessionFiles.folder(environment: [:]) == "")
        #expect(LegacySessionFiles.remove(in: vaultFolder) == 0)
        #expect(!FileManager.default.fileExists(atPath: vaultFolder), "nothing is created")

        try FileManager.default.createDirectory(atPath: vaultFolder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        for name in ["vault-0123.session", "vault-0123.fills", ".vault-0123.session.9f.tmp", "keep.txt"] {
            try Data("{}".utf8).write(to: URL(fileURLWithPath: "\(vaultFolder)/\(name)"))
        }
        #expect(LegacySessionFiles.remove(in: vaultFolder) == 3)
        #expect(try FileManager.default.contentsOfDirectory(atPath: vaultFolder) == ["keep.txt"])
    }
}

/// The events a memory reported, in order.
final class Events: Sendable {
    private let events = Mutex<[VaultMemory.Event]>([])

    var all: [VaultMemory.Event] { events.withLock { $0 } }

    func append(_ event: VaultMemory.Event) { events.withLock { $0.append(event) } }
}
