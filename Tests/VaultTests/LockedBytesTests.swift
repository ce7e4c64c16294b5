import Foundation
import Glibc
import Testing
@testable import VaultCore

/// The vault key's memory: its own pages, locked where allowed, left out of core dumps, zeroed.
struct LockedBytesTests {
    static let secret: [UInt8] = (0..<32).map { UInt8($0 * 7 + 1) }

    @Test func itHoldsTheBytesInPagesOfItsOwn() throws {
        let bytes = try Self.secret.withUnsafeBytes { raw in try LockedBytes(copying: raw) }
        #expect(bytes.count == 32)
        #expect(bytes.isPageAligned)
        #expect(bytes.withUnsafeBytes { Array($0) } == Self.secret)
        #expect(!bytes.isWiped)
    }

    @Test func itsPagesAreLeftOutOfCoreDumpsAndLockedWhereTheLimitAllows() throws {
        let bytes = try LockedBytes(count: 32)
        let flags = try #require(try Self.vmFlags(at: bytes.address), "the mapping is in /proc/self/smaps")
        #expect(flags.contains("dd"), "MADV_DONTDUMP: \(flags)")
        if bytes.memoryLockError == nil {
            #expect(flags.contains("lo"), "mlock: \(flags)")
        } else {
            #expect(!flags.contains("lo"))
        }
        // One page is all it needs: any RLIMIT_MEMLOCK of a page or more lets mlock succeed.
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(__RLIMIT_MEMLOCK.rawValue), &limit)
        if getuid() == 0 || limit.rlim_cur >= UInt(sysconf(Int32(_SC_PAGESIZE))) {
            #expect(bytes.memoryLockError == nil)
        }
    }

    @Test func wipingZeroesEveryByteAndCanBeRepeated() throws {
        let bytes = try Self.secret.withUnsafeBytes { raw in try LockedBytes(copying: raw) }
        bytes.wipe()
        #expect(bytes.isWiped)
        #expect(bytes.withUnsafeBytes { raw in raw.allSatisfy { $0 == 0 } })
        bytes.wipe()
        #expect(bytes.withUnsafeBytes { $0.count } == 32)
    }

    @Test func aVaultKeyLivesInLockedBytesAndNeverPrints() throws {
        let folder = try TemporaryFolder()
        let vault = try Fixture.vault(in: folder)
        #expect(vault.key.storage.count == 32)
        #expect(vault.key.storage.isPageAligned)
        #expect("\(vault.key)" == "<REDACTED>")
        #expect(String(reflecting: vault.key) == "VaultKey(<REDACTED>)")
        var dumped = ""
        dump(vault.key, to: &dumped)
        #expect(!dumped.contains(vault.key.storage.withUnsafeBytes { Array($0) }.map { String($0) }.joined(separator: ", ")))
        // A wiped key opens nothing: the vault it belonged to is locked for good.
        vault.key.wipe()
        #expect(throws: VaultError.wrongPasswordOrModified(vault.path)) { try Vault.open(at: vault.path, key: vault.key) }
    }

    /// The `VmFlags` line of the mapping holding `address` in /proc/self/smaps (the kernel may have
    /// merged it with a neighbour of the same kind, so it need not start there).
    static func vmFlags(at address: UInt) throws -> String? {
        // Read to the end: /proc files say they are empty, which a size-guided read believes.
        guard let file = FileHandle(forReadingAtPath: "/proc/self/smaps") else { return nil }
        defer { try? file.close() }
        let smaps = String(decoding: try file.readToEnd() ?? Data(), as: UTF8.self)
        var inMapping = false
        for line in smaps.split(separator: "\n") {
            if line.hasPrefix("VmFlags:") {
                if inMapping { return String(line.dropFirst("VmFlags:".count)) }
            } else if let range = line.split(separator: " ").first, range.contains("-"),
                let start = UInt(range.split(separator: "-")[0], radix: 16), let end = UInt(range.split(separator: "-")[1], radix: 16)
            {
                inMapping = start <= address && address < end
            }
        }
        return nil
    }
}
