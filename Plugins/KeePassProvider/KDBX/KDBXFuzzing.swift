internal import AutofillCore

/// Entry points for fuzzing the reader's parts that take untrusted bytes, each reached as the
/// provider reaches it, with no key derivation in the way (kdbx-fuzz and the fuzz tests; see
/// docs/WRITING_A_PROVIDER.md, "Fuzzing the KeePass reader"). Each returns the error the input ended
/// in, or nil when it was read; none may trap.
public enum KDBXFuzzing {
    /// The inner stream key the fuzzed documents' protected values are XORed with (ChaCha20).
    public static let innerStreamKey = [UInt8](repeating: 7, count: 64)

    /// Reads `xml` as a decrypted database document (KDBX 4 times when `version4`).
    public static func document(_ xml: [UInt8], version4: Bool) -> KDBXError? {
        catching { () throws(KDBXError) in
            let document = KDBXDocument(stream: try InnerStream(try .init(id: 3, key: innerStreamKey)), binaryTimes: version4)
            try document.write(xml)
            try document.finish()
            _ = document.entries()
        }
    }

    /// Reads `payload` as what decryption yields: KDBX 4's inner header then the document (the two
    /// gzip-compressed when `compressed`), or KDBX 3.1's hashed blocks of the document (of its gzip).
    public static func payload(_ payload: [UInt8], version4: Bool, compressed: Bool) -> KDBXError? {
        catching { () throws(KDBXError) in
            // KDBX 4: inflate, then the inner header and the document; KDBX 3.1: hashed blocks, then inflate.
            var document: KDBXDocument?
            let sink: any PayloadSink
            if version4 {
                let header = InnerHeaderSink { parameters throws(KDBXError) in
                    let made = KDBXDocument(stream: try InnerStream(parameters), binaryTimes: true)
                    document = made
                    return made
                }
                sink = compressed ? try InflatingSink(next: header, limit: 64 << 20) : header
            } else {
                let made = KDBXDocument(stream: try InnerStream(try .init(id: 3, key: innerStreamKey)), binaryTimes: false)
                document = made
                sink = HashedBlockSink(next: compressed ? try InflatingSink(next: made, limit: 64 << 20) : made)
            }
            // In pieces, as decryption hands them on.
            var offset = 0
            while offset < payload.count {
                let next = min(payload.count, offset + 1 + offset % 4093)
                try sink.write(payload[offset..<next])
                offset = next
            }
            try sink.finish()
            _ = document?.entries()
        }
    }

    /// Rewrites `xml` as a save would (a new password for its first entry, else a new entry), with a
    /// new inner stream, and reads the result back, checked against what was read
    /// (``KDBXWriter/check(_:against:edit:)``).
    public static func rewrite(_ xml: [UInt8], version4: Bool) -> KDBXError? {
        catching { () throws(KDBXError) in
            let old = try InnerStream.Parameters(id: 3, key: innerStreamKey)
            let new = try InnerStream.Parameters(id: 3, key: [UInt8](repeating: 9, count: 64))
            let read = KDBXDocument(stream: try InnerStream(old), binaryTimes: version4)
            try read.write(xml)
            try read.finish()
            let before = KDBXDatabase(formatVersion: "fuzz", name: read.name, entries: read.entries())
            let edit: KDBXEdit = before.entries.first.map { .setPassword(uuid: $0.uuid, password: Secret("fuzzed ✓")) }
                ?? .add(title: "fuzz", userName: "fuzzer", password: Secret("fuzzed ✓"), url: "https://fuzz.example")
            let check = KDBXDocument(stream: try InnerStream(new), binaryTimes: version4)
            let output = XMLOutput(sink: check, stream: try InnerStream(new))
            output.declaration()
            try KDBXRewriter(reading: try InnerStream(old), output: output, binaryTimes: version4, edit: edit,
                             headerHash: version4 ? nil : [UInt8](repeating: 1, count: 32)).rewrite(xml)
            try KDBXWriter.check(KDBXDatabase(formatVersion: "fuzz", name: check.name, entries: check.entries()), against: before, edit: edit)
        }
    }

    /// Reads `bytes` as a key file.
    public static func keyFile(_ bytes: [UInt8]) -> KDBXError? {
        catching { () throws(KDBXError) in _ = try KeyFile(bytes: bytes, path: "fuzzed.key") }
    }

    /// Opens `file` as a whole database with `password`; a header asking a costly key derivation
    /// (over 2,000,000 AES rounds, 64 MiB or 8 passes of Argon2: a mutated count) is left unopened.
    public static func database(_ file: [UInt8], password: String) -> KDBXError? {
        catching { () throws(KDBXError) in
            switch try KDBXHeader(reading: file).keyDerivation {
            case .aes(_, let rounds) where rounds > 2_000_000: return
            case .argon2(let argon2) where argon2.memoryKiB > 64 << 10 || argon2.iterations > 8: return
            default: _ = try KDBXReader.open(file, key: CompositeKey(password: Secret(password), keyFile: nil))
            }
        }
    }

    private static func catching(_ body: () throws(KDBXError) -> Void) -> KDBXError? {
        do {
            try body()
            return nil
        } catch {
            return error
        }
    }
}
