internal import CZlib

/// Gzip inflation (zlib), with a ceiling on the output so a hostile file cannot exhaust memory.
enum Gzip {
    /// The largest XML this reader inflates: 512 MiB.
    static let maximumSize = 512 << 20

    static func inflate(_ input: [UInt8]) throws(KDBXError) -> [UInt8] {
        var stream = z_stream()
        // 16 + MAX_WBITS: a gzip header, not a zlib one.
        guard inflateInit2_(&stream, 16 + MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw KDBXError(.unsupported, "zlib could not be initialized")
        }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var input = input
        let status: Int32 = input.withUnsafeMutableBufferPointer { source in
            stream.next_in = source.baseAddress
            stream.avail_in = UInt32(source.count)
            while true {
                let result: Int32 = chunk.withUnsafeMutableBufferPointer { buffer in
                    stream.next_out = buffer.baseAddress
                    stream.avail_out = UInt32(buffer.count)
                    return CZlib.inflate(&stream, Z_NO_FLUSH)
                }
                output += chunk[0..<(chunk.count - Int(stream.avail_out))]
                if result == Z_STREAM_END { return Z_OK }
                if result != Z_OK { return result }
                if output.count > maximumSize { return Z_MEM_ERROR }
                if stream.avail_in == 0 && stream.avail_out != 0 { return Z_BUF_ERROR }
            }
        }
        switch status {
        case Z_OK: return output
        case Z_MEM_ERROR: throw KDBXError(.unsupported, "the database's contents inflate to more than \(maximumSize >> 20) MiB; this reader stops there")
        default: throw KDBXError(.corrupt, "the database's compressed contents are damaged (zlib error \(status))")
        }
    }
}
