internal import AutofillCore
internal import Foundation
internal import Crypto

/// Opens KeePass databases (KDBX 3.1 and 4.x) read-only.
///
/// The order of checks: the header is parsed; the key is derived; then, before any payload byte is
/// used, KDBX 4 checks the header's SHA-256 and its HMAC (a wrong key fails here) and every block's
/// HMAC; KDBX 3.1 checks the decrypted start bytes (a wrong key fails here), every block's SHA-256,
/// and the header's SHA-256 against the XML's HeaderHash. The file is never written.
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
        try KeyDerivationCost.check(header.keyDerivation, limit: kdfLimit, database: name)
        var composite = key.hash
        defer { for index in composite.indices { composite[index] = 0 } }
        var transformed = try header.keyDerivation.transform(composite)
        defer { for index in transformed.indices { transformed[index] = 0 } }
        let cipherKey = Array(SHA256.hash(data: header.masterSeed + transformed))
        return header.isVersion4
            ? try openVersion4(file, header: header, cipherKey: cipherKey, hmacBase: Array(SHA512.hash(data: header.masterSeed + transformed + [1])))
            : try openVersion3(file, header: header, cipherKey: cipherKey)
    }

    private static func openVersion4(_ file: [UInt8], header: KDBXHeader, cipherKey: [UInt8], hmacBase: [UInt8]) throws(KDBXError) -> KDBXDatabase {
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
        let encrypted = try BlockStreams.hmacBlocks(file, from: reader.offset, hmacBase: hmacBase)
        var payload = try decrypt(encrypted, header: header, cipherKey: cipherKey)
        if header.isCompressed { payload = try Gzip.inflate(payload) }
        let (stream, xmlStart) = try innerHeader(payload)
        let document = KDBXDocument(stream: InnerStream(stream), binaryTimes: true)
        let entries = try document.read(Array(payload[xmlStart...]))
        return KDBXDatabase(formatVersion: "4.\(header.minorVersion)", name: document.name, entries: entries)
    }

    private static func openVersion3(_ file: [UInt8], header: KDBXHeader, cipherKey: [UInt8]) throws(KDBXError) -> KDBXDatabase {
        let encrypted = Array(file[header.bytes.count...])
        let payload = try decrypt(encrypted, header: header, cipherKey: cipherKey)
        guard let start = header.streamStartBytes, payload.count >= 32, constantTimeEqual(Array(payload[0..<32]), start) else {
            throw KDBXError(.wrongKey, "wrong master password or key file (the decrypted start bytes do not match)")
        }
        var xml = try BlockStreams.hashedBlocks(payload, from: 32)
        if header.isCompressed { xml = try Gzip.inflate(xml) }
        guard let parameters = header.innerStream else { throw KDBXError(.corrupt, "the database header has no inner stream") }
        let document = KDBXDocument(stream: InnerStream(parameters), binaryTimes: false)
        let entries = try document.read(xml)
        guard let headerHash = document.headerHash else {
            throw KDBXError(.tampered, "the database has no header checksum (Meta/HeaderHash), so its header cannot be checked; save it again in KeePassXC")
        }
        guard constantTimeEqual(Array(SHA256.hash(data: header.bytes)), headerHash) else {
            throw KDBXError(.tampered, "the database header fails its checksum: the file was changed or damaged (restore it from a backup)")
        }
        return KDBXDatabase(formatVersion: "3.\(header.minorVersion)", name: document.name, entries: entries)
    }

    /// The payload decrypted (padding removed: KDBX 3.1 checks its start bytes first, so a wrong key
    /// is told apart from a truncated file).
    private static func decrypt(_ encrypted: [UInt8], header: KDBXHeader, cipherKey: [UInt8]) throws(KDBXError) -> [UInt8] {
        switch header.cipher {
        case .aes256CBC:
            let plain = try Gcrypt.aesCBCDecrypt(key: cipherKey, iv: header.encryptionIV, encrypted)
            if let start = header.streamStartBytes, plain.count < 32 || !constantTimeEqual(Array(plain[0..<32]), start) {
                throw KDBXError(.wrongKey, "wrong master password or key file (the decrypted start bytes do not match)")
            }
            return try Gcrypt.removePadding(plain)
        case .chaCha20:
            return try Gcrypt.stream(.chaCha20, key: cipherKey, nonce: header.encryptionIV, encrypted)
        }
    }

    /// KDBX 4's inner header: the inner stream's algorithm and key (binaries skipped); where the XML starts.
    private static func innerHeader(_ payload: [UInt8]) throws(KDBXError) -> (InnerStream.Parameters, Int) {
        var reader = ByteReader(payload, what: "inner header")
        var id: UInt32?
        var key: [UInt8]?
        while true {
            let field = try reader.uint8()
            let data = try reader.read(Int(try reader.uint32()))
            switch field {
            case 0:
                guard let id, let key else { throw KDBXError(.corrupt, "the inner header has no inner stream: the file is damaged") }
                return (try InnerStream.Parameters(id: id, key: key), reader.offset)
            case 1: id = UInt32(truncatingIfNeeded: data.littleEndianInteger)
            case 2: key = data
            default: continue  // 3: an attachment; not needed for filling
            }
        }
    }
}
