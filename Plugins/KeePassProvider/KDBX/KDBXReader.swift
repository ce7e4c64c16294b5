internal import AutofillCore
internal import Foundation
internal import Crypto

/// Opens KeePass databases (KDBX 3.1 and 4.x) read-only (``KDBXWriter`` saves them).
///
/// The order of checks: the header is parsed; the key is derived; KDBX 4 checks the header's SHA-256
/// and its HMAC (a wrong key fails here) and each block's HMAC before its bytes are used; KDBX 3.1
/// checks the decrypted start bytes (a wrong key fails here), each block's SHA-256 before its bytes
/// are used, and the header's SHA-256 against the XML's HeaderHash when the XML has one. The payload
/// streams from the file through decryption, inflation and the XML parser in pieces (see
/// ``PayloadSink``): only the file and the entries read are held whole. The file is never written here.
///
/// The key derivation's parameters come from the unchecked header, so its cost is estimated first
/// (``KeyDerivationCost``), and one over `kdfLimit` (10 s by default) is refused without running.
public enum KDBXReader {
    /// Reads and opens the database at `path` with `key`, refusing a key derivation estimated to take
    /// over `kdfLimit`.
    public static func open(at path: String, key: CompositeKey, kdfLimit: Duration = KeyDerivationCost.defaultLimit) throws(KDBXError) -> KDBXDatabase {
        guard let data = FileManager.default.contents(atPath: path) else {
            let reason = FileManager.default.fileExists(atPath: path) ? "cannot be read (check its permissions)" : "does not exist (check the DatabaseFile setting)"
            throw KDBXError(.unreadable, "the database \(path) \(reason)")
        }
        return try open([UInt8](data), key: key, kdfLimit: kdfLimit, name: "the database \(path)")
    }

    /// The header of the database at `path`, without a key: what it says before it is opened.
    static func header(of file: [UInt8]) throws(KDBXError) -> KDBXHeader {
        try KDBXHeader(reading: file)
    }

    /// Opens the database held in `file` (named `name` in errors) with `key`, refusing a key derivation
    /// estimated to take over `kdfLimit`.
    public static func open(_ file: [UInt8], key: CompositeKey, kdfLimit: Duration = KeyDerivationCost.defaultLimit,
                            name: String = "the database") throws(KDBXError) -> KDBXDatabase {
        let header = try KDBXHeader(reading: file)
        var document: KDBXDocument?
        try decrypt(file, header: header, key: key, kdfLimit: kdfLimit, name: name) { parameters throws(KDBXError) in
            let made = KDBXDocument(stream: try InnerStream(parameters), binaryTimes: header.isVersion4)
            document = made
            return made
        }
        guard let document else { throw KDBXError(.corrupt, "the inner header ends early: the file is truncated or damaged") }
        try checkHeaderHash(document.headerHash, of: header)
        return KDBXDatabase(formatVersion: "\(header.majorVersion).\(header.minorVersion)", name: document.name, entries: document.entries())
    }

    /// KDBX 3.1. The header is not covered by a MAC: its seeds and IV make the key (a change fails as a
    /// wrong key), and the XML's Meta/HeaderHash, when there, is checked against it. A file without
    /// HeaderHash (pykeepass writes none) opens, as in KeePassXC.
    static func checkHeaderHash(_ headerHash: [UInt8]?, of header: KDBXHeader) throws(KDBXError) {
        guard !header.isVersion4, let headerHash else { return }
        guard constantTimeEqual(Array(SHA256.hash(data: header.bytes)), headerHash) else {
            throw KDBXError(.tampered, "the database header fails its checksum: the file was changed or damaged (restore it from a backup)")
        }
    }

    /// The key derived from `key` with the header's key derivation (estimated first, refused over
    /// `kdfLimit`), and the payload decrypted, checked and inflated, piece by piece, into the document
    /// `makeDocument` makes with the inner stream's parameters; KDBX 4's inner header goes to `innerHeader`
    /// when given (to keep the attachments), else to one that streams past them.
    static func decrypt(_ file: [UInt8], header: KDBXHeader, key: CompositeKey, kdfLimit: Duration, name: String,
                        innerHeader: InnerHeaderSink? = nil,
                        makeDocument: @escaping (InnerStream.Parameters) throws(KDBXError) -> any PayloadSink) throws(KDBXError) {
        try KeyDerivationCost.check(header.keyDerivation, limit: kdfLimit, database: name)
        var transformed = try transformedKey(key, with: header.keyDerivation)
        defer { for index in transformed.indices { transformed[index] = 0 } }
        let cipherKey = Array(SHA256.hash(data: header.masterSeed + transformed))
        if header.isVersion4 {
            try decryptVersion4(file, header: header, cipherKey: cipherKey, hmacBase: Array(SHA512.hash(data: header.masterSeed + transformed + [1])),
                                innerHeader: innerHeader ?? InnerHeaderSink(makeDocument: makeDocument))
        } else {
            guard let parameters = header.innerStream else { throw KDBXError(.corrupt, "the database header has no inner stream: the file is damaged") }
            try decryptVersion3(file, header: header, cipherKey: cipherKey, document: try makeDocument(parameters))
        }
    }

    /// The 32-byte transformed key of `key` under `keyDerivation` (Argon2's memory checked against
    /// the helper's ceiling first).
    static func transformedKey(_ key: CompositeKey, with keyDerivation: KeyDerivation) throws(KDBXError) -> [UInt8] {
        var argon2: (memoryKiB: UInt64, lanes: UInt64)?
        if case .argon2(let parameters) = keyDerivation {
            argon2 = (UInt64(parameters.memoryKiB), UInt64(parameters.parallelism))
            try MemoryCeiling.checkArgon2(memoryKiB: UInt64(parameters.memoryKiB), lanes: UInt64(parameters.parallelism))
        }
        var composite = key.hash
        defer { for index in composite.indices { composite[index] = 0 } }
        do {
            return try keyDerivation.transform(composite)
        } catch {
            // libargon2 could not allocate: under the helper's ceiling, that is the ceiling's doing.
            if let argon2, error.message.contains("Memory allocation"),
               let named = MemoryCeiling.allocationFailed(memoryKiB: argon2.memoryKiB, lanes: argon2.lanes) {
                throw named
            }
            throw error
        }
    }

    private static func decryptVersion4(_ file: [UInt8], header: KDBXHeader, cipherKey: [UInt8], hmacBase: [UInt8],
                                        innerHeader: InnerHeaderSink) throws(KDBXError) {
        var reader = ByteReader(file, offset: header.bytes.count, what: "header checksum")
        let hash = try reader.read(32)
        let mac = try reader.read(32)
        guard constantTimeEqual(Array(SHA256.hash(data: header.bytes)), hash) else {
            throw KDBXError(.tampered, "the database header fails its checksum: the file was changed or damaged (restore it from a backup)")
        }
        let headerKey = SymmetricKey(data: BlockStreams.blockKey(index: UInt64.max, hmacBase: hmacBase))
        guard constantTimeEqual(Array(HMAC<SHA256>.authenticationCode(for: header.bytes, using: headerKey)), mac) else {
            throw KDBXError(.wrongKey, "wrong master password or key file (the database header's HMAC does not match)")
        }
        let plain: any PayloadSink = header.isCompressed ? try InflatingSink(next: innerHeader) : innerHeader
        try BlockStreams.hmacBlocks(file, from: reader.offset, hmacBase: hmacBase,
                                    to: try DecryptingSink(header.cipher, key: cipherKey, iv: header.encryptionIV, next: plain))
    }

    private static func decryptVersion3(_ file: [UInt8], header: KDBXHeader, cipherKey: [UInt8], document: any PayloadSink) throws(KDBXError) {
        guard let start = header.streamStartBytes else {
            throw KDBXError(.corrupt, "the database header has no stream start bytes: the file is damaged")
        }
        let xml: any PayloadSink = header.isCompressed ? try InflatingSink(next: document) : document
        let decrypting = try DecryptingSink(header.cipher, key: cipherKey, iv: header.encryptionIV,
                                            next: StartBytesSink(expected: start, next: HashedBlockSink(next: xml)))
        var offset = header.bytes.count
        while offset < file.count {
            let end = min(offset + (1 << 20), file.count)
            try decrypting.write(file[offset..<end])
            offset = end
        }
        try decrypting.finish()
    }
}
