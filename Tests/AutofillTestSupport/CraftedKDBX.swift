/// KeePass database files made by hand, a few hundred bytes each: a real header with the key
/// derivation parameters a test chooses, then junk where the checksums and payload go. What a hostile
/// file looks like to a reader until after its key derivation ran.
public enum CraftedKDBX {
    static let aesCipher: [UInt8] = [0x31, 0xC1, 0xF2, 0xE6, 0xBF, 0x71, 0x43, 0x50, 0xBE, 0x58, 0x05, 0x21, 0x6A, 0xFC, 0x5A, 0xFF]
    static let aesKDF: [UInt8] = [0xC9, 0xD9, 0xF3, 0x9A, 0x62, 0x8A, 0x44, 0x60, 0xBF, 0x74, 0x0D, 0x08, 0xC1, 0x8A, 0x4F, 0xEA]
    static let argon2id: [UInt8] = [0x9E, 0x29, 0x8B, 0x19, 0x56, 0xDB, 0x47, 0x73, 0xB2, 0x3D, 0xFC, 0x3E, 0xC6, 0xF0, 0xA1, 0xE6]
    static let signature: [UInt8] = [0x03, 0xD9, 0xA2, 0x9A, 0x67, 0xFB, 0x4B, 0xB5]

    static func little<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }

    /// A KDBX 3.1 file: the header with AES-KDF of `rounds`, then 32 bytes of junk.
    public static func kdbx3(rounds: UInt64) -> [UInt8] {
        var bytes = signature + little(UInt16(1)) + little(UInt16(3))
        let fields: [(UInt8, [UInt8])] = [
            (2, aesCipher), (3, little(UInt32(0))), (4, [UInt8](repeating: 4, count: 32)), (5, [UInt8](repeating: 5, count: 32)),
            (6, little(rounds)), (7, [UInt8](repeating: 7, count: 16)), (8, [UInt8](repeating: 8, count: 32)),
            (9, [UInt8](repeating: 9, count: 32)), (10, little(UInt32(2))), (0, [0x0D, 0x0A, 0x0D, 0x0A]),
        ]
        for (id, data) in fields { bytes += [id] + little(UInt16(data.count)) + data }
        return bytes + [UInt8](repeating: 0xAA, count: 32)
    }

    /// A KDBX 4 file whose key derivation parameters are `items` (a variant dictionary's type, key and
    /// value), then a junk checksum and HMAC.
    public static func kdbx4(_ items: [(type: UInt8, key: String, value: [UInt8])]) -> [UInt8] {
        var dictionary: [UInt8] = little(UInt16(0x0100))
        for item in items {
            dictionary += [item.type] + little(UInt32(item.key.utf8.count)) + Array(item.key.utf8) + little(UInt32(item.value.count)) + item.value
        }
        dictionary += [0]
        var bytes = signature + little(UInt16(0)) + little(UInt16(4))
        let fields: [(UInt8, [UInt8])] = [
            (2, aesCipher), (3, little(UInt32(0))), (4, [UInt8](repeating: 4, count: 32)), (7, [UInt8](repeating: 7, count: 16)),
            (11, dictionary), (0, [0x0D, 0x0A, 0x0D, 0x0A]),
        ]
        for (id, data) in fields { bytes += [id] + little(UInt32(data.count)) + data }
        return bytes + [UInt8](repeating: 0xAA, count: 64)
    }

    /// A KDBX 4 file with Argon2id of these parameters.
    public static func argon2(iterations: UInt64, memoryBytes: UInt64, parallelism: UInt32) -> [UInt8] {
        kdbx4([(0x42, "$UUID", argon2id), (0x42, "S", [UInt8](repeating: 1, count: 32)), (0x05, "I", little(iterations)),
               (0x05, "M", little(memoryBytes)), (0x04, "P", little(parallelism)), (0x04, "V", little(UInt32(0x13)))])
    }

    /// A KDBX 4 file with AES-KDF of `rounds`.
    public static func aes4(rounds: UInt64) -> [UInt8] {
        kdbx4([(0x42, "$UUID", aesKDF), (0x42, "S", [UInt8](repeating: 1, count: 32)), (0x05, "R", little(rounds))])
    }
}
