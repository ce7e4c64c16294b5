import AutofillCore
import AutofillTestSupport
import Foundation
import KDBX
import Testing

/// A database's key derivation parameters come from the file, unchecked until after the derivation:
/// the reader estimates the cost first and refuses one over its limit without running it (a 317-byte
/// file once kept a provider busy for over 70 s). The files here are crafted headers, a few hundred
/// bytes each; the controls, with small parameters, do run their derivation and fail later, at the
/// header's checksum, as any damaged file does.
struct KeyDerivationCostTests {
    let folder: TemporaryFolder
    init() throws { folder = try TemporaryFolder("kdf-cost") }

    static let aesCipher: [UInt8] = [0x31, 0xC1, 0xF2, 0xE6, 0xBF, 0x71, 0x43, 0x50, 0xBE, 0x58, 0x05, 0x21, 0x6A, 0xFC, 0x5A, 0xFF]
    static let aesKDF: [UInt8] = [0xC9, 0xD9, 0xF3, 0x9A, 0x62, 0x8A, 0x44, 0x60, 0xBF, 0x74, 0x0D, 0x08, 0xC1, 0x8A, 0x4F, 0xEA]
    static let argon2id: [UInt8] = [0x9E, 0x29, 0x8B, 0x19, 0x56, 0xDB, 0x47, 0x73, 0xB2, 0x3D, 0xFC, 0x3E, 0xC6, 0xF0, 0xA1, 0xE6]

    static func little<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }

    /// A KDBX 3.1 file: the header with AES-KDF of `rounds`, then junk where the payload goes.
    static func kdbx3(rounds: UInt64) -> [UInt8] {
        var bytes: [UInt8] = [0x03, 0xD9, 0xA2, 0x9A, 0x67, 0xFB, 0x4B, 0xB5] + little(UInt16(1)) + little(UInt16(3))
        func field(_ id: UInt8, _ data: [UInt8]) { bytes += [id] + little(UInt16(data.count)) + data }
        field(2, aesCipher)
        field(3, little(UInt32(0)))
        field(4, [UInt8](repeating: 4, count: 32))
        field(5, [UInt8](repeating: 5, count: 32))
        field(6, little(rounds))
        field(7, [UInt8](repeating: 7, count: 16))
        field(8, [UInt8](repeating: 8, count: 32))
        field(9, [UInt8](repeating: 9, count: 32))
        field(10, little(UInt32(2)))
        field(0, [0x0D, 0x0A, 0x0D, 0x0A])
        return bytes + [UInt8](repeating: 0xAA, count: 32)
    }

    /// A KDBX 4 file: the header with `kdf` (a variant dictionary's items), then a junk checksum and HMAC.
    static func kdbx4(_ items: [(type: UInt8, key: String, value: [UInt8])]) -> [UInt8] {
        var dictionary: [UInt8] = little(UInt16(0x0100))
        for item in items { dictionary += [item.type] + little(UInt32(item.key.utf8.count)) + Array(item.key.utf8) + little(UInt32(item.value.count)) + item.value }
        dictionary += [0]
        var bytes: [UInt8] = [0x03, 0xD9, 0xA2, 0x9A, 0x67, 0xFB, 0x4B, 0xB5] + little(UInt16(0)) + little(UInt16(4))
        func field(_ id: UInt8, _ data: [UInt8]) { bytes += [id] + little(UInt32(data.count)) + data }
        field(2, aesCipher)
        field(3, little(UInt32(0)))
        field(4, [UInt8](repeating: 4, count: 32))
        field(7, [UInt8](repeating: 7, count: 16))
        field(11, dictionary)
        field(0, [0x0D, 0x0A, 0x0D, 0x0A])
        return bytes + [UInt8](repeating: 0xAA, count: 64)
    }

    static func argon2(iterations: UInt64, memoryBytes: UInt64, parallelism: UInt32) -> [UInt8] {
        kdbx4([(0x42, "$UUID", argon2id), (0x42, "S", [UInt8](repeating: 1, count: 32)), (0x05, "I", little(iterations)),
               (0x05, "M", little(memoryBytes)), (0x04, "P", little(parallelism)), (0x04, "V", little(UInt32(0x13)))])
    }

    static func aes4(rounds: UInt64) -> [UInt8] {
        kdbx4([(0x42, "$UUID", aesKDF), (0x42, "S", [UInt8](repeating: 1, count: 32)), (0x05, "R", little(rounds))])
    }

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
        ("aes3.kdbx", kdbx3(rounds: 10_000_000_000_000), "AES-KDF, 10000000000000 rounds"),
        ("aes4.kdbx", aes4(rounds: .max), "AES-KDF, \(UInt64.max) rounds"),
        ("argon2.kdbx", argon2(iterations: 1_000_000_000, memoryBytes: 64 << 20, parallelism: 2), "Argon2id, 1000000000 iterations, 64 MiB, parallelism 2"),
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
        for (name, bytes) in [("small3.kdbx", Self.kdbx3(rounds: 1000)), ("small4.kdbx", Self.argon2(iterations: 2, memoryBytes: 1 << 20, parallelism: 2))] {
            let (_, error) = try open(name, bytes)
            #expect(error != nil && error?.code != .tooSlow, "\(name): \(String(describing: error))")
        }
    }

    @Test func theLimitIsTheCallersChoice() throws {
        let bytes = Self.kdbx3(rounds: 2_000_000)
        #expect(try open("tight.kdbx", bytes, limit: .microseconds(1)).error?.code == .tooSlow)
        #expect(try open("loose.kdbx", bytes, limit: .seconds(600)).error?.code != .tooSlow)
    }
}
