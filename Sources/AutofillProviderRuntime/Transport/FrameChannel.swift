package import AutofillWire
internal import AutofillSystem
internal import Synchronization

/// One end of a helper's protocol socket: whole frames out, one writer at a time.
///
/// Writes use `MSG_NOSIGNAL`, so a peer that died makes `send` return false instead of raising
/// SIGPIPE in this process. Reading is ``FrameAssembler``'s job, on the one thread that reads.
package final class FrameChannel: Sendable {
    /// The socket.
    let descriptor: Int32
    private let writing = Mutex(false)  // true once closed

    package init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Sends `message`, with `attached` (a descriptor) attached to its first byte (SCM_RIGHTS) when given; false when
    /// the peer is gone or the channel is closed.
    /// - Throws: when the message is over ``HelperProtocol/maximumFrameBytes`` (nothing is sent).
    @discardableResult
    package func send(_ message: HelperMessage, attaching attached: Int32? = nil) throws(FrameError) -> Bool {
        let frame = message.frame
        guard frame.count - 4 <= HelperProtocol.maximumFrameBytes else {
            throw FrameError("a \(frame.count >> 20) MB message is over the helper protocol's limit of \(HelperProtocol.maximumFrameBytes >> 20) MB")
        }
        return writing.withLock { closed in
            guard !closed else { return false }
            return frame.withUnsafeBytes { raw in
                if let attached {
                    // Every byte, the descriptor with the first (a frame is never empty).
                    return (try? UnixSocket.send(descriptor, raw, descriptors: [attached])) != nil
                }
                var offset = 0
                while offset < raw.count {
                    do throws(SystemError) {
                        offset += try Descriptors.send(descriptor, UnsafeRawBufferPointer(rebasing: raw[offset...]))
                    } catch {
                        if error.interrupted { continue }
                        return false
                    }
                }
                return true
            }
        }
    }

    /// Closes the socket: the peer reads end-of-file. Later sends return false.
    package func close() {
        writing.withLock { closed in
            guard !closed else { return }
            closed = true
            Descriptors.closeQuietly(descriptor)
        }
    }
}
