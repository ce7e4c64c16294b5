internal import Crypto

/// The two framings of a payload: KDBX 4's HMAC-SHA256 blocks and KDBX 3.1's SHA-256 hashed blocks.
/// Each block is checked before any of its bytes is used.
enum BlockStreams {
    /// KDBX 4: blocks of (HMAC, length, data) from `offset` of `file`, each HMAC checked with the
    /// block key derived from `hmacBase`; the blocks' data joined (still encrypted).
    static func hmacBlocks(_ file: [UInt8], from offset: Int, hmacBase: [UInt8]) throws(KDBXError) -> [UInt8] {
        var reader = ByteReader(file, offset: offset, what: "encrypted payload")
        var joined: [UInt8] = []
        var index: UInt64 = 0
        while true {
            let mac = try reader.read(32)
            let lengthBytes = try reader.read(4)
            let length = Int32(bitPattern: UInt32(lengthBytes.littleEndianInteger))
            guard length >= 0 else { throw KDBXError(.corrupt, "payload block \(index) has a negative length: the file is damaged") }
            let data = try reader.read(Int(length))
            let indexBytes = [UInt8](littleEndian: index, size: 8)
            let key = SymmetricKey(data: blockKey(index: index, hmacBase: hmacBase))
            var authenticated = HMAC<SHA256>(key: key)
            authenticated.update(data: indexBytes)
            authenticated.update(data: lengthBytes)
            authenticated.update(data: data)
            guard constantTimeEqual(Array(authenticated.finalize()), mac) else {
                throw KDBXError(.tampered, "payload block \(index) fails its HMAC: the file was changed or damaged after KeePass saved it (restore it from a backup)")
            }
            if length == 0 { return joined }
            joined += data
            index += 1
        }
    }

    /// The HMAC-SHA256 key of block `index` (UInt64.max: the header's).
    static func blockKey(index: UInt64, hmacBase: [UInt8]) -> [UInt8] {
        Array(SHA512.hash(data: [UInt8](littleEndian: index, size: 8) + hmacBase))
    }

    /// KDBX 3.1: blocks of (index, SHA-256, length, data) in the decrypted payload, each hash checked;
    /// the blocks' data joined.
    static func hashedBlocks(_ payload: [UInt8], from offset: Int) throws(KDBXError) -> [UInt8] {
        var reader = ByteReader(payload, offset: offset, what: "decrypted payload")
        var joined: [UInt8] = []
        var expected: UInt32 = 0
        while true {
            let index = try reader.uint32()
            let hash = try reader.read(32)
            let length = Int(try reader.uint32())
            guard index == expected else { throw KDBXError(.tampered, "payload block \(expected) is missing or out of order: the file was changed or damaged") }
            if length == 0 {
                guard hash.allSatisfy({ $0 == 0 }) else { throw KDBXError(.tampered, "the payload's last block is malformed: the file was changed or damaged") }
                return joined
            }
            let data = try reader.read(length)
            guard Array(SHA256.hash(data: data)) == hash else {
                throw KDBXError(.tampered, "payload block \(index) fails its checksum: the file was changed or damaged after KeePass saved it (restore it from a backup)")
            }
            joined += data
            expected += 1
        }
    }
}

/// Whether `a` and `b` are equal, compared in constant time (a MAC check must not tell how many
/// leading bytes matched).
func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
}
