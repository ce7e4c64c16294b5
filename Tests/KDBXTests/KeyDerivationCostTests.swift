import AutofillCore
import AutofillTestSupport
import Foundation
import KDBX
import Testing

/// A database's key derivation parameters come from the file, unchecked until after the derivation:
/// the reader estimates the cost first and refuses one over its limit without running it (a 317-byte
/// file once kept a provider busy for over 70 s). The files here are crafted headers, a few hundred
/// bytes each; the controls, with small parameters, do run their derivation and fail later, at the
/// header's checksum, as any damaged file does (``CraftedKDBX``).
struct KeyDerivationCostTests {
    let folder: TemporaryFolder
    init() throws { folder = try TemporaryFolder("kdf-cost") }

    /// Writes `bytes` as `name` and opens it with a password: the error.
    func open(_ name: String, _ bytes: [UInt8], limit: Duration = KeyDerivationCost.defaultLimit) throws -> (path: String, error: KDBXError?) {
        let path = "\(folder.path)/\(name)"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        do {
            _ = try KDBXReader.open(at: path, key: CompositeKey(password: Secret("pw"), keyFile: nil), kdfLimit: limit)
            return (path, nil)
        } catch {
            return (path, error)
        }
    }

    @Test(arguments: [
        ("aes3.kdbx", CraftedKDBX.kdbx3(rounds: 10_000_000_000_000), "AES-KDF, 10000000000000 rounds"),
        ("aes4.kdbx", CraftedKDBX.aes4(rounds: .max), "AES-KDF, \(UInt64.max) rounds"),
        ("argon2.kdbx", CraftedKDBX.argon2(iterations: 1_000_000_000, memoryBytes: 64 << 20, parallelism: 2), "Argon2id, 1000000000 iterations, 64 MiB, parallelism 2"),
    ])
    func aKeyDerivationOverTheLimitIsRefusedBeforeItRunsNamingTheFileAndItsParameters(name: String, bytes: [UInt8], parameters: String) throws {
        #expect(bytes.count < 400, "a small file")
        let (path, error) = try open(name, bytes)
        let refused = try #require(error)
        #expect(refused.code == .tooSlow, "\(refused)")
        #expect(refused.message.contains(path) && refused.message.contains(parameters), "\(refused.message)")
        #expect(refused.message.contains("over the limit of 10 s") && refused.message.contains("MaximumUnlockSeconds"), "\(refused.message)")
    }

    @Test func smallParametersRunTheirDerivationAndFailOnlyAtTheChecksum() throws {
        for (name, bytes) in [("small3.kdbx", CraftedKDBX.kdbx3(rounds: 1000)), ("small4.kdbx", CraftedKDBX.argon2(iterations: 2, memoryBytes: 1 << 20, parallelism: 2))] {
            let (_, error) = try open(name, bytes)
            #expect(error != nil && error?.code != .tooSlow, "\(name): \(String(describing: error))")
        }
    }

    @Test func theLimitIsTheCallersChoice() throws {
        let bytes = CraftedKDBX.kdbx3(rounds: 2_000_000)
        #expect(try open("tight.kdbx", bytes, limit: .microseconds(1)).error?.code == .tooSlow)
        #expect(try open("loose.kdbx", bytes, limit: .seconds(600)).error?.code != .tooSlow)
    }
}
