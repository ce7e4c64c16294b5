internal import CZlib
internal import Crypto

/// The stages a saved payload goes through on its way to the file, the reader's in reverse, each a
/// ``PayloadSink`` taking the bytes piece by piece: gzip, KDBX 3.1's hashed blocks, encryption, KDBX
/// 4's HMAC blocks, and the bytes collected for the file.
final class CollectingSink: PayloadSink {
    private(set) var bytes: [UInt8] = []
    /// The most bytes collected; more is refused with `tooLarge`'s message.
    private let limit: Int
    private let tooLarge: String

    init(limit: Int = .max, tooLarge: String = "") {
        self.limit = limit
        self.tooLarge = tooLarge
    }

    func write(_ piece: UnsafeBufferPointer<UInt8>) throws(KDBXError) {
        guard bytes.count + piece.count <= limit else { throw KDBXError(.unsupported, tooLarge) }
        bytes += piece
    }

    func finish() throws(KDBXError) {}
}

/// Hands every piece to two sinks: the file's stages and a reader of what is written.
final class TeeSink: PayloadSink {
    private let first: any PayloadSink
    private let second: any PayloadSink

    init(_ first: any PayloadSink, _ second: any PayloadSink) {
        self.first = first
        self.second = second
    }

    func write(_ piece: UnsafeBufferPointer<UInt8>) throws(KDBXError) {
        try first.write(piece)
        try second.write(piece)
    }

    func finish() throws(KDBXError) {
        try first.finish()
        try second.finish()
    }
}

/// Gzip compression (zlib), as KeePass compresses the payload.
final class DeflatingSink: PayloadSink {
    private let next: any PayloadSink
    private var stream = z_stream()
    private var chunk = [UInt8](repeating: 0, count: 1 << 16)

    init(next: any PayloadSink) throws(KDBXError) {
        self.next = next
        // 16 + MAX_WBITS: a gzip header, as KeePass writes; memory level 8, zlib's default.
        guard deflateInit2_(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY,
                            ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw KDBXError(.unsupported, "zlib could not be initialized")
        }
    }

    deinit { deflateEnd(&stream) }

    func write(_ piece: UnsafeBufferPointer<UInt8>) throws(KDBXError) {
        guard let base = piece.baseAddress, !piece.isEmpty else { return }
        stream.next_in = UnsafeMutablePointer(mutating: base)
        stream.avail_in = UInt32(piece.count)
        defer { stream.next_in = nil; stream.avail_in = 0 }
        try run(Z_NO_FLUSH)
    }

    func finish() throws(KDBXError) {
        try run(Z_FINISH)
        try next.finish()
    }

    private func run(_ flush: Int32) throws(KDBXError) {
        while true {
            let (result, made) = chunk.withUnsafeMutableBufferPointer { buffer in
                stream.next_out = buffer.baseAddress
                stream.avail_out = UInt32(buffer.count)
                let result = deflate(&stream, flush)
                return (result, buffer.count - Int(stream.avail_out))
            }
            guard result == Z_OK || result == Z_STREAM_END || result == Z_BUF_ERROR else {
                throw KDBXError(.unsupported, "zlib could not compress the database (error \(result))")
            }
            if made > 0 { try next.write(chunk[0..<made]) }
            if flush == Z_FINISH ? result == Z_STREAM_END : (stream.avail_in == 0 && made < chunk.count) { return }
        }
    }
}

/// Encrypts the payload: a block cipher in CBC mode with PKCS#7 padding at the end, or a stream cipher.
final class EncryptingSink: PayloadSink {
    private let cipher: Gcrypt.Cipher
    private let blockSize: Int
    private let next: any PayloadSink
    private var pending: [UInt8] = []

    init(_ cipher: OuterCipher, key: [UInt8], iv: [UInt8], next: any PayloadSink) throws(KDBXError) {
        self.cipher = try cipher.open(key: key, iv: iv)
        blockSize = cipher.isBlockCipher ? 16 : 1
        self.next = next
    }

    func write(_ piece: UnsafeBufferPointer<UInt8>) throws(KDBXError) {
        pending += piece
        let whole = pending.count / blockSize * blockSize
        guard whole > 0 else { return }
        try cipher.transform(&pending, count: whole, decrypt: false)
        try next.write(pending[0..<whole])
        pending.removeFirst(whole)
    }

    func finish() throws(KDBXError) {
        if blockSize > 1 {
            let padding = blockSize - pending.count % blockSize
            pending += [UInt8](repeating: UInt8(padding), count: padding)
            try cipher.transform(&pending, decrypt: false)
            try next.write(pending)
            pending = []
        }
        try next.finish()
    }
}

/// KDBX 3.1: the payload in blocks of (index, SHA-256, length, data), then an empty block with a
/// zero hash.
final class HashedBlockWriter: PayloadSink {
    static let blockSize = 1 << 20
    private let next: any PayloadSink
    private var buffer: [UInt8] = []
    private var index: UInt32 = 0

    init(next: any PayloadSink) {
        self.next = next
    }

    func write(_ piece: UnsafeBufferPointer<UInt8>) throws(KDBXError) {
        try BlockCutter.cut(piece, into: &buffer, size: Self.blockSize) { block throws(KDBXError) in try emit(block) }
    }

    func finish() throws(KDBXError) {
        if !buffer.isEmpty { try emit(buffer) }
        buffer = []
        try next.write([UInt8](littleEndian: UInt64(index), size: 4) + [UInt8](repeating: 0, count: 32) + [0, 0, 0, 0])
        try next.finish()
    }

    private func emit(_ data: [UInt8]) throws(KDBXError) {
        try next.write([UInt8](littleEndian: UInt64(index), size: 4) + Array(SHA256.hash(data: data))
                       + [UInt8](littleEndian: UInt64(data.count), size: 4) + data)
        index += 1
    }
}

/// KDBX 4: the encrypted payload in blocks of (HMAC, length, data), each HMAC keyed for its index
/// (``BlockStreams/blockKey(index:hmacBase:)``), then an empty block.
final class HMACBlockWriter: PayloadSink {
    static let blockSize = 1 << 20
    private let next: any PayloadSink
    private let hmacBase: [UInt8]
    private var buffer: [UInt8] = []
    private var index: UInt64 = 0

    init(hmacBase: [UInt8], next: any PayloadSink) {
        self.hmacBase = hmacBase
        self.next = next
    }

    func write(_ piece: UnsafeBufferPointer<UInt8>) throws(KDBXError) {
        try BlockCutter.cut(piece, into: &buffer, size: Self.blockSize) { block throws(KDBXError) in try emit(block) }
    }

    func finish() throws(KDBXError) {
        if !buffer.isEmpty { try emit(buffer) }
        buffer = []
        try emit([])
        try next.finish()
    }

    private func emit(_ data: [UInt8]) throws(KDBXError) {
        let length = [UInt8](littleEndian: UInt64(data.count), size: 4)
        var mac = HMAC<SHA256>(key: SymmetricKey(data: BlockStreams.blockKey(index: index, hmacBase: hmacBase)))
        mac.update(data: [UInt8](littleEndian: index, size: 8))
        mac.update(data: length)
        mac.update(data: data)
        try next.write(Array(mac.finalize()) + length + data)
        index += 1
    }
}

/// Cuts a stream into blocks of `size` bytes for the two block writers: whole blocks go out as they
/// fill, whatever is left waits in `buffer` for the next piece (or the writer's `finish`). A piece is
/// read where it lies, so a large piece costs one copy per block, never a shift of what remains.
enum BlockCutter {
    static func cut(_ piece: UnsafeBufferPointer<UInt8>, into buffer: inout [UInt8], size: Int,
                    emit: ([UInt8]) throws(KDBXError) -> Void) throws(KDBXError) {
        var offset = 0
        if !buffer.isEmpty {
            let taken = min(size - buffer.count, piece.count)
            buffer += piece[0..<taken]
            offset = taken
            guard buffer.count == size else { return }
            try emit(buffer)
            buffer = []
        }
        while piece.count - offset >= size {
            try emit(Array(piece[offset..<(offset + size)]))
            offset += size
        }
        buffer += piece[offset...]
    }
}
