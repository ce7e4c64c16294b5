internal import CZlib

/// Gzip inflation (zlib), piece by piece, with a ceiling on the output so a hostile file (a
/// compression bomb) ends in an error instead of exhausting memory or time.
final class InflatingSink: PayloadSink {
    /// The most XML this reader inflates: 1 GiB (about twenty times a 100,000-entry database's).
    static let maximumSize = 1 << 30

    private let next: any PayloadSink
    private let limit: Int
    private var stream = z_stream()
    private var chunk = [UInt8](repeating: 0, count: 1 << 16)
    private var produced = 0
    private var ended = false

    init(next: any PayloadSink, limit: Int = InflatingSink.maximumSize) throws(KDBXError) {
        self.next = next
        self.limit = limit
        // 16 + MAX_WBITS: a gzip header, not a zlib one.
        guard inflateInit2_(&stream, 16 + MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw KDBXError(.unsupported, "zlib could not be initialized")
        }
    }

    deinit { inflateEnd(&stream) }

    func write(_ bytes: UnsafeBufferPointer<UInt8>) throws(KDBXError) {
        guard !ended, let base = bytes.baseAddress, !bytes.isEmpty else { return }
        stream.next_in = UnsafeMutablePointer(mutating: base)
        stream.avail_in = UInt32(bytes.count)
        defer { stream.next_in = nil; stream.avail_in = 0 }
        while !ended {
            let (result, made) = chunk.withUnsafeMutableBufferPointer { buffer in
                stream.next_out = buffer.baseAddress
                stream.avail_out = UInt32(buffer.count)
                let result = inflate(&stream, Z_NO_FLUSH)
                return (result, buffer.count - Int(stream.avail_out))
            }
            guard result == Z_OK || result == Z_STREAM_END || result == Z_BUF_ERROR else {
                throw KDBXError(.corrupt, "the database's compressed contents are damaged (zlib error \(result))")
            }
            produced += made
            guard produced <= limit else {
                throw KDBXError(.unsupported, """
                    the database's contents inflate to more than \(limit >> 20) MiB, where this reader stops (a compression \
                    bomb, or a database far larger than KeePassXC writes): the file is not read
                    """)
            }
            try next.write(chunk[0..<made])
            ended = result == Z_STREAM_END
            // Z_BUF_ERROR: no progress possible; else all input used and nothing more held back.
            if result == Z_BUF_ERROR || (stream.avail_in == 0 && made < chunk.count) { break }
        }
    }

    func finish() throws(KDBXError) {
        guard ended else { throw KDBXError(.corrupt, "the database's compressed contents end early: the file is truncated or damaged") }
        try next.finish()
    }
}
