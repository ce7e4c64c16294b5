/// A header for saving the file again, as KeePassXC saves: every field kept (version, cipher,
/// compression, key derivation and its parameters, public custom data) but the random ones, which
/// are new: the master seed, the encryption IV, the key derivation's seed or salt, and (KDBX 3.1) the
/// inner stream key and the stream start bytes.
extension KDBXHeader {
    /// The renewed header's bytes (read back with ``init(reading:)``).
    func renewed() throws(KDBXError) -> KDBXHeader {
        var random = SystemRandomNumberGenerator()
        func fresh(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) } }
        var reader = ByteReader(bytes, what: "database header")
        var out = try reader.read(12)
        while true {
            let id = try reader.uint8()
            let size = isVersion4 ? Int(try reader.uint32()) : Int(try reader.uint16())
            var data = try reader.read(size)
            switch (id, isVersion4) {
            case (4, _), (7, _), (5, false), (9, false): data = fresh(data.count)
            case (8, false): data = fresh(innerStream?.cipher == .chaCha20 ? 64 : 32)
            case (11, true): data = try VariantDictionary.replacing("S", with: fresh(keyDerivation.seedSize), in: data)
            default: break
            }
            out.append(id)
            out += isVersion4 ? [UInt8](littleEndian: UInt64(data.count), size: 4) : [UInt8](littleEndian: UInt64(data.count), size: 2)
            out += data
            if id == 0 { break }
        }
        return try KDBXHeader(reading: out)
    }
}

extension KeyDerivation {
    /// The length of the seed (AES-KDF) or salt (Argon2).
    var seedSize: Int {
        switch self {
        case .aes(let seed, _): seed.count
        case .argon2(let parameters): parameters.salt.count
        }
    }
}
