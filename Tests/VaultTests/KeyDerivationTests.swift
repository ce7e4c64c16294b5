import AutofillCore
import Foundation
import Testing
@testable import VaultCore

/// Argon2id vaults, scrypt vaults of earlier releases, the floor and the ceiling, and changing the
/// master password: atomically, and never leaving the provider with a stale key.
struct KeyDerivationTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
    }

    /// Argon2id at a test cost: microseconds, accepted by the test floor only.
    static let cheapArgon2 = KeyDerivation.argon2id(Argon2Parameters(memoryKiB: 64, iterations: 1, parallelism: 1))
    static let newPassword = Secret("a new master password, 7 words long")

    @Test func anArgon2idVaultRecordsItsParametersInAVersion2HeaderAndOpens() throws {
        let path = "\(folder.path)/vault.afvault"
        _ = try Vault.create(at: path, password: Fixture.password, keyDerivation: Self.cheapArgon2, contents: Fixture.contents)
        let file = try bytes(of: path)
        #expect(Array(file[8...10]) == [2, 2, 0x13], "format version 2, Argon2id, Argon2 version 0x13")
        #expect(Array(file[11...19]) == [0, 0, 0, 64, 0, 0, 0, 1, 1], "m = 64 KiB, t = 1, p = 1, big-endian")
        let opened = try Vault.open(at: path, password: Fixture.password)
        #expect(opened.header.keyDerivation == Self.cheapArgon2)
        #expect(opened.contents == Fixture.contents)
        #expect(throws: VaultError.wrongPasswordOrModified(path)) { try Vault.open(at: path, password: Secret("wrong")) }
    }

    @Test func libargon2DerivesWhatAnIndependentImplementationDerives() throws {
        // Expected value from Python's cryptography 48 (OpenSSL's Argon2id): Argon2id(salt=b"somesalt",
        // length=32, iterations=2, lanes=4, memory_cost=65536).derive(b"password").
        let parameters = Argon2Parameters(memoryKiB: 1 << 16, iterations: 2, parallelism: 4)
        let key = try parameters.deriveKey(bytes: Array("password".utf8), salt: Array("somesalt".utf8))
        let hex = key.storage.withUnsafeBytes { $0.map { String(format: "%02x", $0) }.joined() }
        #expect(hex == "1a9677b0afe81fda7b548895e7a1bfeb8668ffc19a530e37e088a668fab1c02a")
    }

    @Test func newVaultsUseRFC9106sSecondRecommendedOption() {
        #expect(KeyDerivation.standard == .argon2id(Argon2Parameters(memoryKiB: 65_536, iterations: 3, parallelism: 4)))
        #expect(KeyDerivation.standard.meetsReleaseFloor)
        // RFC 9106's first option (2 GiB, one pass) is within the floor and the ceiling too.
        #expect(throws: Never.self) { try KeyDerivation.argon2id(Argon2Parameters(memoryKiB: 2 << 20, iterations: 1, parallelism: 4)).check(.writing, floor: .release) }
    }

    @Test(arguments: [
        KeyDerivation.argon2id(Argon2Parameters(memoryKiB: 64, iterations: 1, parallelism: 1)),
        .argon2id(Argon2Parameters(memoryKiB: 16 << 10, iterations: 2, parallelism: 1)),  // 32 MiB of work: below 36
        .argon2id(Argon2Parameters(memoryKiB: 4 << 10, iterations: 10, parallelism: 1)),  // under 8 MiB
        .scrypt(ScryptParameters(log2N: 16)),  // the old default: below OWASP's minimum for a new key
    ])
    func costsBelowTheFloorAreRefusedForANewKeyOutsideTests(_ cheap: KeyDerivation) throws {
        let error = try #require(throws: VaultError.self) { try cheap.check(.writing, floor: .release) }
        #expect(error.message.contains("below the floor"), "\(error.message)")
        #expect(throws: Never.self) { try cheap.check(.writing, floor: .tests) }
    }

    @Test func aReleaseOpensNoArgon2idVaultBelowTheFloorButEveryScryptVaultAnEarlierReleaseWrote() throws {
        let cheap = "\(folder.path)/cheap.afvault"
        _ = try Vault.create(at: cheap, password: Fixture.password, keyDerivation: Self.cheapArgon2)
        let error = try #require(throws: VaultError.self) { try VaultHeader(reading: bytes(of: cheap), path: cheap, floor: .release) }
        #expect(error.code == .corrupt)
        #expect(error.message.contains("\(cheap) was not opened: the key derivation in its header, Argon2id m=64 KiB t=1 p=1 is below the floor"))
        #expect(error.message.contains("No key was derived"))
        #expect(throws: Never.self) { try VaultHeader(reading: bytes(of: cheap), path: cheap, floor: .tests) }

        let legacy = try Fixture.vault(in: folder)  // scrypt N = 2^10, the least an earlier release wrote
        #expect(throws: Never.self) { try VaultHeader(reading: bytes(of: legacy.path), path: legacy.path, floor: .release) }
        #expect(!legacy.header.keyDerivation.meetsReleaseFloor, "autofill-vault warns and passwd upgrades it")
    }

    @Test(arguments: [
        [UInt8](arrayLiteral: 0x06, 0x40, 0x00, 0x00, 0, 0, 0, 3, 4),  // m = 100 GiB
        [0x00, 0x01, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 4],  // 4 billion passes
        [0x00, 0x01, 0x00, 0x00, 0, 0, 0, 3, 200],  // 200 lanes
        [0x00, 0x01, 0x00, 0x00, 0, 0, 0, 0, 4],  // no pass at all
        [0x00, 0x40, 0x00, 0x00, 0, 0, 0, 32, 4],  // 4 GiB × 32 passes: minutes of work
    ])
    func aHostileHeaderIsRefusedBeforeAnyKeyIsDerived(_ costs: [UInt8]) throws {
        let path = "\(folder.path)/hostile.afvault"
        _ = try Vault.create(at: path, password: Fixture.password, keyDerivation: Self.cheapArgon2)
        var file = try bytes(of: path)
        file.replaceSubrange(11...19, with: costs)
        try write(file, to: path)
        let started = Date()
        let error = try #require(throws: VaultError.self) { try Vault.open(at: path, password: Fixture.password) }
        #expect(Date().timeIntervalSince(started) < 30, "refused before deriving (deriving would take minutes or more; 30 s leaves room for a loaded machine)")
        #expect(error.code == .corrupt)
        #expect(error.message.contains("is out of range: at most 4 GiB of memory, 32 passes, 16 lanes and 16 GiB of memory × passes"), "\(error.message)")
        #expect(error.message.contains("the file is damaged, was changed, or was made by a test build"))
    }

    @Test func anUnknownArgon2VersionOrFormatVersionSaysUpdateAutofill() throws {
        let path = "\(folder.path)/vault.afvault"
        _ = try Vault.create(at: path, password: Fixture.password, keyDerivation: Self.cheapArgon2)
        var file = try bytes(of: path)
        file[10] = 0x14
        try write(file, to: path)
        #expect(throws: VaultError(.unsupportedVersion, "\(path) uses Argon2 version 20; this autofill derives with 0x13: update autofill")) {
            try Vault.open(at: path, password: Fixture.password)
        }
        file[8] = 3
        try write(file, to: path)
        let error = try #require(throws: VaultError.self) { try Vault.open(at: path, password: Fixture.password) }
        #expect(error.code == .unsupportedVersion && error.message.contains("reads versions 1 and 2"))
    }

    @Test func changingTheMasterPasswordUpgradesAScryptVaultWithANewSaltAndKey() throws {
        let old = try Fixture.vault(in: folder)
        let changed = try Vault.changeMasterPassword(
            at: old.path, unlock: { try Vault.open(at: $0, password: Fixture.password) }, newPassword: { Self.newPassword },
            keyDerivation: Self.cheapArgon2)
        #expect(changed.header.keyDerivation == Self.cheapArgon2)
        #expect(changed.header.salt != old.header.salt)
        #expect(try bytes(of: old.path)[8] == 2, "written as format version 2")
        #expect(throws: VaultError.wrongPasswordOrModified(old.path)) { try Vault.open(at: old.path, password: Fixture.password) }
        #expect(try Vault.open(at: old.path, password: Self.newPassword).contents == Fixture.contents)
        #expect(try mode(of: old.path) == 0o600)
    }

    @Test func aWrongCurrentPasswordChangesNothingAndAsksForNoNewOne() throws {
        let vault = try Fixture.vault(in: folder)
        let before = try bytes(of: vault.path)
        var asked = false
        #expect(throws: VaultError.wrongPasswordOrModified(vault.path)) {
            try Vault.changeMasterPassword(at: vault.path, unlock: { try Vault.open(at: $0, password: Secret("wrong")) },
                                           newPassword: { asked = true; return Self.newPassword }, keyDerivation: Self.cheapArgon2)
        }
        #expect(!asked)
        #expect(try bytes(of: vault.path) == before)
    }

    @Test(arguments: [AtomicFile.FailurePoint.beforeRename, .crashBeforeRename])
    func aFailureOrCrashMidwayLeavesTheOldVaultUnderTheOldPassword(_ failure: AtomicFile.FailurePoint) throws {
        let vault = try Fixture.vault(in: folder)
        let before = try bytes(of: vault.path)
        #expect(throws: VaultError.self) {
            try Vault.changeMasterPassword(at: vault.path, unlock: { try Vault.open(at: $0, password: Fixture.password) },
                                           newPassword: { Self.newPassword }, keyDerivation: Self.cheapArgon2, failing: failure)
        }
        #expect(try bytes(of: vault.path) == before)
        #expect(try Vault.open(at: vault.path, password: Fixture.password).contents == Fixture.contents)
    }

    @Test func theProviderLocksWhenTheKeyChangesAndNeverWritesWithTheOldOne() throws {
        let vault = try Fixture.vault(in: folder)
        let events = Events()
        let memory = VaultMemory(timeout: 300) { events.append($0) }
        memory.hold(vault)
        _ = try Vault.changeMasterPassword(at: vault.path, unlock: { try Vault.open(at: $0, password: Fixture.password) },
                                           newPassword: { Self.newPassword }, keyDerivation: Self.cheapArgon2)
        let after = try bytes(of: vault.path)

        // A passkey save the provider had started with the key it held: refused, nothing written.
        #expect(throws: VaultError.wrongPasswordOrModified(vault.path)) {
            try vault.update(waitingAtMost: 1) { try $0.add(.text(TextEntry(id: "late", title: "late", text: Secret("x")))) }
        }
        #expect(try bytes(of: vault.path) == after)

        // The next request finds a new salt and key derivation: locked, the old key zeroed.
        #expect(try memory.unlocked(at: vault.path) == nil)
        #expect(!memory.isUnlocked && vault.key.isWiped)
        #expect(events.all.last == .locked(.keyChanged))
    }
}
