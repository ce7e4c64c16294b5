internal import AutofillSystem

/// Cuts a byte stream into frame bodies (tag and fields), refusing lengths over the limit.
package struct FrameAssembler {
    private var buffer: [UInt8] = []
    private var start = 0
    private let maximumFrameBytes: Int

    /// An assembler of frames of at most `maximumFrameBytes`.
    package init(maximumFrameBytes: Int = Wire.maximumFrameBytes) {
        self.maximumFrameBytes = maximumFrameBytes
    }

    /// Adds bytes read from the stream.
    package mutating func append(_ bytes: UnsafeRawBufferPointer) {
        if start > 0 && start >= buffer.count / 2 {
            buffer.removeFirst(start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete frame's body, or nil until more bytes arrive.
    package mutating func next() throws(FrameError) -> [UInt8]? {
        guard buffer.count - start >= 4 else { return nil }
        var length = 0
        for index in 0..<4 { length |= Int(buffer[start + index]) << (8 * index) }
        guard length >= 1, length <= maximumFrameBytes else {
            throw FrameError("a frame of \(length) bytes (the limit is \(maximumFrameBytes))")
        }
        guard buffer.count - start - 4 >= length else { return nil }
        let body = Array(buffer[(start + 4)..<(start + 4 + length)])
        start += 4 + length
        return body
    }

    /// Whether bytes of an unfinished frame are waiting.
    package var isMidFrame: Bool { buffer.count > start }
}

/// Reads whatever `descriptor` has (up to 64 KB): the byte count, 0 at end-of-file, -1 on error
/// (EAGAIN included); retries EINTR.
package func readSome(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int {
    (try? Descriptors.read(descriptor, into: buffer)) ?? -1
}
