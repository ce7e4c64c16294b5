/// One stage of a payload's way from the file to the XML parser, taking the bytes piece by piece so
/// that no stage holds the whole payload: decryption, KDBX 3.1's hashed blocks, inflation, KDBX 4's
/// inner header, the document.
protocol PayloadSink: AnyObject {
    func write(_ bytes: UnsafeBufferPointer<UInt8>) throws(KDBXError)
    /// The payload ended: whatever a stage still holds is checked and passed on.
    func finish() throws(KDBXError)
}

extension PayloadSink {
    func write(_ bytes: [UInt8]) throws(KDBXError) {
        try write(bytes[...])
    }

    func write(_ bytes: ArraySlice<UInt8>) throws(KDBXError) {
        var failure: KDBXError?
        bytes.withUnsafeBufferPointer { buffer in
            do throws(KDBXError) { try write(buffer) } catch { failure = error }
        }
        if let failure { throw failure }
    }
}

/// Decrypts the payload: a block cipher in CBC mode (the last block held back until the end, for
/// its PKCS#7 padding) or a stream cipher.
final class DecryptingSink: PayloadSink {
    private let cipher: Gcrypt.Cipher
    private let blockSize: Int
    private let next: any PayloadSink
    /// Bytes not yet a whole block; the last decrypted block (CBC).
    private var pending: [UInt8] = []
    private var last: [UInt8] = []

    init(_ cipher: OuterCipher, key: [UInt8], iv: [UInt8], next: any PayloadSink) throws(KDBXError) {
        self.cipher = try cipher.open(key: key, iv: iv)
        blockSize = cipher.isBlockCipher ? 16 : 1
        self.next = next
    }

    func write(_ bytes: UnsafeBufferPointer<UInt8>) throws(KDBXError) {
        guard blockSize > 1 else {
            var plain = Array(bytes)
            try cipher.transform(&plain)
            try next.write(plain)
            return
        }
        pending += bytes
        let whole = pending.count / blockSize * blockSize
        guard whole > 0 else { return }
        try cipher.transform(&pending, count: whole)
        let ready = last + pending[0..<whole - blockSize]
        last = Array(pending[whole - blockSize..<whole])
        pending.removeFirst(whole)
        try next.write(ready)
    }

    func finish() throws(KDBXError) {
        if blockSize > 1 {
            guard pending.isEmpty, !last.isEmpty else {
                throw KDBXError(.corrupt, "the encrypted payload is not a whole number of cipher blocks: the file is truncated or damaged")
            }
            let padding = Int(last[last.count - 1])
            guard (1...blockSize).contains(padding), last.suffix(padding).allSatisfy({ Int($0) == padding }) else {
                throw KDBXError(.corrupt, "the decrypted payload ends without its padding: the file is truncated or damaged (restore it from a backup)")
            }
            try next.write(last.dropLast(padding))
        }
        try next.finish()
    }
}

/// KDBX 3.1: the decrypted payload's first 32 bytes must be the header's stream start bytes (a
/// wrong key fails here, before anything else is read).
final class StartBytesSink: PayloadSink {
    private let expected: [UInt8]
    private let next: any PayloadSink
    private var seen: [UInt8] = []

    init(expected: [UInt8], next: any PayloadSink) {
        self.expected = expected
        self.next = next
    }

    func write(_ bytes: UnsafeBufferPointer<UInt8>) throws(KDBXError) {
        var rest = bytes[...]
        if seen.count < expected.count {
            let take = min(expected.count - seen.count, rest.count)
            seen += rest.prefix(take)
            rest = rest.dropFirst(take)
            if seen.count == expected.count, !constantTimeEqual(seen, expected) {
                throw KDBXError(.wrongKey, "wrong master password or key file (the decrypted start bytes do not match)")
            }
        }
        if !rest.isEmpty { try next.write(UnsafeBufferPointer(rebasing: rest)) }
    }

    func finish() throws(KDBXError) {
        guard seen.count == expected.count else {
            throw KDBXError(.wrongKey, "wrong master password or key file (the decrypted start bytes do not match)")
        }
        try next.finish()
    }
}
