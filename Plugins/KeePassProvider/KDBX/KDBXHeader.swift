internal import CGcrypt

/// The outer, unencrypted header of a KDBX file (versions 3.1 and 4.x): which cipher, key derivation
/// and compression the payload uses, and the seeds. Nothing in it is trusted until its hash (KDBX 3.1:
/// the XML's HeaderHash) or HMAC (KDBX 4) is checked by ``KDBXReader``.
struct KDBXHeader: Sendable {
    /// The KeePass 2 signature: 0x9AA2D903, then 0xB54BFB67 (little-endian).
    static let signature: [UInt8] = [0x03, 0xD9, 0xA2, 0x9A, 0x67, 0xFB, 0x4B, 0xB5]

    /// The major format version: 3 or 4.
    let majorVersion: UInt16
    let minorVersion: UInt16
    let cipher: OuterCipher
    let isCompressed: Bool
    let masterSeed: [UInt8]
    let encryptionIV: [UInt8]
    let keyDerivation: KeyDerivation
    /// KDBX 3.1: the inner stream's key and algorithm (KDBX 4 keeps them in the inner header).
    let innerStream: InnerStream.Parameters?
    /// KDBX 3.1: the first 32 bytes the decrypted payload must start with.
    let streamStartBytes: [UInt8]?
    /// The header's bytes, signature included, for its hash and HMAC.
    let bytes: [UInt8]

    var isVersion4: Bool { majorVersion == 4 }

    /// Reads the header at the start of `file`.
    init(reading file: [UInt8]) throws(KDBXError) {
        var reader = ByteReader(file, what: "database header")
        guard file.count >= 12, Array(file[0..<8]) == Self.signature else {
            throw KDBXError(.notKDBX, "this is not a KeePass 2 database (KDBX): its first bytes are not the KeePass signature")
        }
        _ = try reader.read(8)
        minorVersion = try reader.uint16()
        majorVersion = try reader.uint16()
        guard majorVersion == 4 || (majorVersion == 3 && minorVersion >= 1) else {
            throw KDBXError(.unsupported, """
                the database is KDBX \(majorVersion).\(minorVersion); this reader opens KDBX 3.1 and 4.x \
                (open and save it in KeePassXC to convert it)
                """)
        }
        var fields: [UInt8: [UInt8]] = [:]
        while true {
            let id = try reader.uint8()
            let size = majorVersion == 4 ? Int(try reader.uint32()) : Int(try reader.uint16())
            let data = try reader.read(size)
            if id == 0 { break }
            fields[id] = data
        }
        bytes = Array(file[0..<reader.offset])
        let field = Fields(values: fields)

        cipher = try OuterCipher(uuid: try field.required(2, "cipher"))
        let compression = try field.required(3, "compression flags").littleEndianInteger
        guard compression <= 1 else { throw KDBXError(.unsupported, "the database uses an unknown compression (\(compression))") }
        isCompressed = compression == 1
        masterSeed = try field.required(4, "master seed", size: 32)
        encryptionIV = try field.required(7, "encryption IV", size: cipher.ivSize)
        if majorVersion == 4 {
            keyDerivation = try KeyDerivation(parameters: VariantDictionary(parsing: try field.required(11, "key derivation parameters")))
            innerStream = nil
            streamStartBytes = nil
        } else {
            let rounds = try field.required(6, "transform rounds", size: 8).littleEndianInteger
            keyDerivation = .aes(seed: try field.required(5, "transform seed", size: 32), rounds: rounds)
            innerStream = try InnerStream.Parameters(
                id: UInt32(try field.required(10, "inner stream id", size: 4).littleEndianInteger),
                key: try field.required(8, "protected stream key"))
            streamStartBytes = try field.required(9, "stream start bytes", size: 32)
        }
    }

    /// The header's fields by id.
    private struct Fields {
        let values: [UInt8: [UInt8]]

        func required(_ id: UInt8, _ name: String, size: Int? = nil) throws(KDBXError) -> [UInt8] {
            guard let value = values[id] else { throw KDBXError(.corrupt, "the database header has no \(name): the file is damaged") }
            if let size, value.count != size {
                throw KDBXError(.corrupt, "the database header's \(name) is \(value.count) bytes, not \(size): the file is damaged")
            }
            return value
        }
    }
}

/// The cipher of the payload: AES-256-CBC, Twofish-CBC (256-bit key) or ChaCha20, as KeePassXC offers.
enum OuterCipher: Sendable, Equatable {
    case aes256CBC
    case twofishCBC
    case chaCha20

    static let aesUUID: [UInt8] = [0x31, 0xC1, 0xF2, 0xE6, 0xBF, 0x71, 0x43, 0x50, 0xBE, 0x58, 0x05, 0x21, 0x6A, 0xFC, 0x5A, 0xFF]
    static let chaCha20UUID: [UInt8] = [0xD6, 0x03, 0x8A, 0x2B, 0x8B, 0x6F, 0x4C, 0xB5, 0xA5, 0x24, 0x33, 0x9A, 0x31, 0xDB, 0xB5, 0x9A]
    static let twofishUUID: [UInt8] = [0xAD, 0x68, 0xF2, 0x9F, 0x57, 0x6F, 0x4B, 0xB9, 0xA3, 0x6A, 0xD4, 0x7A, 0xF9, 0x65, 0x34, 0x6C]

    init(uuid: [UInt8]) throws(KDBXError) {
        switch uuid {
        case Self.aesUUID: self = .aes256CBC
        case Self.twofishUUID: self = .twofishCBC
        case Self.chaCha20UUID: self = .chaCha20
        default:
            throw KDBXError(.unsupported, "the database uses an unknown cipher; choose AES-256, Twofish or ChaCha20 in KeePassXC's database settings")
        }
    }

    var ivSize: Int { self == .chaCha20 ? 12 : 16 }
    var isBlockCipher: Bool { self != .chaCha20 }

    /// The cipher keyed for decrypting a payload.
    func open(key: [UInt8], iv: [UInt8]) throws(KDBXError) -> Gcrypt.Cipher {
        switch self {
        case .aes256CBC: try Gcrypt.Cipher(Int32(GCRY_CIPHER_AES256.rawValue), Int32(GCRY_CIPHER_MODE_CBC.rawValue), key: key, iv: iv)
        case .twofishCBC: try Gcrypt.Cipher(Int32(GCRY_CIPHER_TWOFISH.rawValue), Int32(GCRY_CIPHER_MODE_CBC.rawValue), key: key, iv: iv)
        case .chaCha20: try Gcrypt.Cipher(.chaCha20, key: key, nonce: iv)
        }
    }
}
