/// KDBX 4's inner header, read from the decrypted (and inflated) payload: the inner stream's
/// algorithm and key. Attachments (field 3) are streamed past without being held (filling needs
/// none) unless `keepsBinaries` (saving writes them back). Once the header ends, the rest goes to
/// the document made with the inner stream's parameters.
final class InnerHeaderSink: PayloadSink {
    /// The largest inner stream field kept (KeePassXC writes a 4-byte id and a 64-byte key).
    static let maximumFieldSize = 4096

    private let makeDocument: (InnerStream.Parameters) throws(KDBXError) -> any PayloadSink
    private let keepsBinaries: Bool
    /// The attachments' fields (a flag byte, then the bytes), in order, when `keepsBinaries`.
    private(set) var binaries: [[UInt8]] = []
    private var document: (any PayloadSink)?
    /// The field being read: its 5-byte head, then its data (kept, or only counted).
    private var head: [UInt8] = []
    private var field: UInt8 = 0
    private var left = 0
    private var data: [UInt8] = []
    private var id: UInt32?
    private var key: [UInt8]?

    init(keepsBinaries: Bool = false, makeDocument: @escaping (InnerStream.Parameters) throws(KDBXError) -> any PayloadSink) {
        self.keepsBinaries = keepsBinaries
        self.makeDocument = makeDocument
    }

    func write(_ bytes: UnsafeBufferPointer<UInt8>) throws(KDBXError) {
        var rest = bytes[...]
        while document == nil, !rest.isEmpty {
            if head.count < 5 {
                let take = min(5 - head.count, rest.count)
                head += rest.prefix(take)
                rest = rest.dropFirst(take)
                guard head.count == 5 else { return }
                field = head[0]
                left = Int(Array(head[1...]).littleEndianInteger)
                guard field == 3 || left <= Self.maximumFieldSize else {
                    throw KDBXError(.corrupt, "the inner header's field \(field) is \(left) bytes: the file is damaged")
                }
                data = []
            }
            let take = min(left, rest.count)
            if field != 3 || keepsBinaries { data += rest.prefix(take) }
            rest = rest.dropFirst(take)
            left -= take
            if left == 0 { try endField() }
        }
        if let document, !rest.isEmpty { try document.write(UnsafeBufferPointer(rebasing: rest)) }
    }

    private func endField() throws(KDBXError) {
        head = []
        switch field {
        case 0:
            guard let id, let key else { throw KDBXError(.corrupt, "the inner header has no inner stream: the file is damaged") }
            document = try makeDocument(try InnerStream.Parameters(id: id, key: key))
        case 1: id = UInt32(truncatingIfNeeded: data.littleEndianInteger)
        case 2: key = data
        case 3: if keepsBinaries { binaries.append(data) }
        default: break
        }
    }

    func finish() throws(KDBXError) {
        guard let document else { throw KDBXError(.corrupt, "the inner header ends early: the file is truncated or damaged") }
        try document.finish()
    }
}
