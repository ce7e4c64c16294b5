internal import CAutofillHelper
internal import Glibc
internal import Synchronization

/// One end of a helper's protocol socket: whole frames out, one writer at a time.
///
/// Writes use `MSG_NOSIGNAL`, so a peer that died makes `send` return false instead of raising
/// SIGPIPE in this process. Reading is ``FrameAssembler``'s job, on the one thread that reads.
final class FrameChannel: Sendable {
    /// The socket.
    let descriptor: Int32
    private let writing = Mutex(false)  // true once closed

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Sends `message`; false when the peer is gone or the channel is closed.
    /// - Throws: when the message is over ``HelperProtocol/maximumFrameBytes`` (nothing is sent).
    @discardableResult
    func send(_ message: HelperMessage) throws(FrameError) -> Bool {
        let frame = message.frame
        guard frame.count - 4 <= HelperProtocol.maximumFrameBytes else {
            throw FrameError("a \(frame.count >> 20) MB message is over the helper protocol's limit of \(HelperProtocol.maximumFrameBytes >> 20) MB")
        }
        return writing.withLock { closed in
            guard !closed else { return false }
            return frame.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let sent = afh_send(descriptor, raw.baseAddress! + offset, raw.count - offset)
                    if sent < 0 {
                        if errno == EINTR { continue }
                        return false
                    }
                    offset += sent
                }
                return true
            }
        }
    }

    /// Closes the socket: the peer reads end-of-file. Later sends return false.
    func close() {
        writing.withLock { closed in
            guard !closed else { return }
            closed = true
            _ = Glibc.close(descriptor)
        }
    }
}

/// Cuts a byte stream into frame bodies (tag and fields), refusing lengths over the limit.
struct FrameAssembler {
    private var buffer: [UInt8] = []
    private var start = 0

    /// Adds bytes read from the stream.
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        if start > 0 && start >= buffer.count / 2 {
            buffer.removeFirst(start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete frame's body, or nil until more bytes arrive.
    mutating func next() throws(FrameError) -> [UInt8]? {
        guard buffer.count - start >= 4 else { return nil }
        var length = 0
        for index in 0..<4 { length |= Int(buffer[start + index]) << (8 * index) }
        guard length >= 1, length <= HelperProtocol.maximumFrameBytes else {
            throw FrameError("a frame of \(length) bytes (the limit is \(HelperProtocol.maximumFrameBytes))")
        }
        guard buffer.count - start - 4 >= length else { return nil }
        let body = Array(buffer[(start + 4)..<(start + 4 + length)])
        start += 4 + length
        return body
    }

    /// Whether bytes of an unfinished frame are waiting.
    var isMidFrame: Bool { buffer.count > start }
}

/// Reads whatever `descriptor` has (up to 64 KB): the byte count, 0 at end-of-file, -1 on error
/// (EAGAIN included); retries EINTR.
func readSome(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int {
    while true {
        let count = read(descriptor, buffer.baseAddress, buffer.count)
        if count < 0 && errno == EINTR { continue }
        return count
    }
}
