internal import AutofillSystem

/// Chromium's and Firefox's native-messaging framing on the host's standard input and output: each
/// message is a 32-bit length in the machine's byte order followed by that many bytes of UTF-8 JSON.
/// The browsers' limits are the host's: at most 1 MB from the host to the browser (the browser
/// drops a bigger one and ends the host), at most 64 MiB from the browser; a length beyond it is
/// refused before anything is read or allocated.
enum NativeMessaging {
    /// The largest message the host sends (the browsers refuse a bigger one).
    static let maximumOutgoingBytes = 1_024 * 1_024
    /// The largest message a browser sends a host.
    static let maximumIncomingBytes = 64 << 20

    /// Why a message could not be read.
    enum ReadError: Error, Equatable {
        /// The length says more than 64 MiB.
        case tooLarge(UInt32)
        /// The input ended inside a message.
        case truncated
        /// The bytes are not UTF-8.
        case notText
    }

    /// The next message from `descriptor` (standard input), nil when the browser closed it between messages.
    static func read(from descriptor: Int32 = 0) throws(ReadError) -> String? {
        guard let header = readExactly(4, from: descriptor, allowEndFirst: true) else { return nil }
        guard header.count == 4 else { throw .truncated }
        let length = header.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }  // native byte order
        guard length <= UInt32(maximumIncomingBytes) else { throw .tooLarge(length) }
        guard let body = readExactly(Int(length), from: descriptor, allowEndFirst: false), body.count == Int(length) else { throw .truncated }
        guard let text = String(validating: body, as: UTF8.self) else { throw .notText }
        return text
    }

    /// Writes `json` as one message to `descriptor` (standard output); false when it is larger than
    /// the browsers accept (nothing is written) or the browser is gone.
    static func write(_ json: String, to descriptor: Int32 = 1) -> Bool {
        let body = Array(json.utf8)
        guard body.count <= maximumOutgoingBytes else { return false }
        var length = UInt32(body.count)
        let header = withUnsafeBytes(of: &length) { Array($0) }
        return writeAll(header + body, to: descriptor)
    }

    /// `count` bytes, fewer when the input ends first; nil when it ends before the first byte and `allowEndFirst`.
    private static func readExactly(_ count: Int, from descriptor: Int32, allowEndFirst: Bool) -> [UInt8]? {
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: min(max(count, 1), 65_536))
        while result.count < count {
            let wanted = min(chunk.count, count - result.count)
            let got = (try? chunk.withUnsafeMutableBytes { raw in try Descriptors.read(descriptor, into: UnsafeMutableRawBufferPointer(rebasing: raw[0..<wanted])) }) ?? -1
            if got <= 0 { return result.isEmpty && allowEndFirst ? nil : result }
            result += chunk[0..<got]
        }
        return result
    }

    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
        (try? Descriptors.write(descriptor, bytes)) != nil
    }
}
