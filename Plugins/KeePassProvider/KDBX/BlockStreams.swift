internal import Crypto

/// The two framings of a payload: KDBX 4's HMAC-SHA256 blocks and KDBX 3.1's SHA-256 hashed blocks.
/// Each block is checked before any of its bytes is used.
enum BlockStreams {
    /// KDBX 4: blocks of (HMAC, length, data) from `offset` of `file`, each HMAC checked with the
    /// block key derived from `hmacBase`, then written (still encrypted) to `sink` one at a time.
    static func hmacBlocks(_ file: [UInt8], from offset: Int, hmacBase: [UInt8], to sink: any PayloadSink) throws(KDBXError) {
        var reader = ByteReader(file, offset: offset, what: "encrypted payload")
        var index: UInt64 = 0
        while true {
            let mac = try reader.read(32)
            let lengthBytes = try reader.read(4)
            let length = Int32(bitPattern: UInt32(lengthBytes.littleEndianInteger))
            guard length >= 0 else { throw KDBXError(.corrupt, "payload block \(index) has a negative length: the file is damaged") }
            let data = try reader.slice(Int(length))
            let indexBytes = [UInt8](littleEndian: index, size: 8)
            let key = SymmetricKey(data: blockKey(index: index, hmacBase: hmacBase))
            var authenticated = HMAC<SHA256>(key: key)
            authenticated.update(data: indexBytes)
            authenticated.update(data: lengthBytes)
            authenticated.update(data: data)
            guard constantTimeEqual(Array(authenticated.finalize()), mac) else {
                throw KDBXError(.tampered, "payload block \(index) fails its HMAC: the file was changed or damaged after KeePass saved it (restore it from a backup)")
            }
            if length == 0 { return try sink.finish() }
            try sink.write(data)
            index += 1
        }
    }

    /// The HMAC-SHA256 key of block `index` (UInt64.max: the header's).
    static func blockKey(index: UInt64, hmacBase: [UInt8]) -> [UInt8] {
        Array(SHA512.hash(data: [UInt8](littleEndian: index, size: 8) + hmacBase))
    }
}

/// KDBX 3.1: blocks of (index, SHA-256, length, data) in the decrypted payload, each hash checked
/// before its data is passed on; the last block is empty with a zero hash.
final class HashedBlockSink: PayloadSink {
    private let next: any PayloadSink
    private var buffer: [UInt8] = []
    private var expected: UInt32 = 0
    private var ended = false

    init(next: any PayloadSink) {
        self.next = next
    }

    func write(_ bytes: UnsafeBufferPointer<UInt8>) throws(KDBXError) {
        guard !ended else { return }  // KeePass ignores what follows the last block
        buffer += bytes
        var start = 0
        defer { buffer.removeFirst(start) }
        while !ended, buffer.count - start >= 40 {
            var reader = ByteReader(buffer, offset: start, what: "decrypted payload")
            let index = try reader.uint32()
            let hash = try reader.read(32)
            let length = Int(try reader.uint32())
            guard index == expected else { throw KDBXError(.tampered, "payload block \(expected) is missing or out of order: the file was changed or damaged") }
            if length == 0 {
                guard hash.allSatisfy({ $0 == 0 }) else { throw KDBXError(.tampered, "the payload's last block is malformed: the file was changed or damaged") }
                ended = true
                start = buffer.count
                return
            }
            guard reader.remaining >= length else { return }  // the rest of the block is still to come
            let data = buffer[reader.offset..<reader.offset + length]
            guard Array(SHA256.hash(data: data)) == hash else {
                throw KDBXError(.tampered, "payload block \(index) fails its checksum: the file was changed or damaged after KeePass saved it (restore it from a backup)")
            }
            try next.write(data)
            start = reader.offset + length
            expected += 1
        }
    }

    func finish() throws(KDBXError) {
        guard ended else { throw KDBXError(.corrupt, "the decrypted payload ends early: the file is truncated or damaged (restore it from a backup)") }
        try next.finish()
    }
}

/// Whether `a` and `b` are equal, compared in constant time (a MAC check must not tell how many
/// leading bytes matched).
func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
}
