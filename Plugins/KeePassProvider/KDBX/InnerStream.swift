internal import Crypto

/// The keystream that hides protected values (passwords, protected fields) inside the XML: each
/// protected value is XORed with the next bytes of the stream, in document order.
final class InnerStream {
    /// The stream's algorithm and key, from the KDBX 3.1 header or the KDBX 4 inner header.
    struct Parameters: Sendable {
        let cipher: Gcrypt.StreamCipher
        let key: [UInt8]

        init(id: UInt32, key: [UInt8]) throws(KDBXError) {
            switch id {
            case 2: cipher = .salsa20
            case 3: cipher = .chaCha20
            default:
                throw KDBXError(.unsupported, "the database protects its values with an inner stream this reader does not know (\(id)); KeePassXC writes ChaCha20 or Salsa20")
            }
            guard !key.isEmpty else { throw KDBXError(.corrupt, "the inner stream key is empty: the file is damaged") }
            self.key = key
        }

        /// The algorithm's id in the file: 2 Salsa20, 3 ChaCha20.
        var id: UInt32 { cipher == .chaCha20 ? 3 : 2 }
    }

    /// Salsa20's fixed nonce in KeePass.
    static let salsa20Nonce: [UInt8] = [0xE8, 0x30, 0x09, 0x4B, 0x97, 0x20, 0x5D, 0x2A]

    /// The cipher, its position where the last value ended.
    private let cipher: Gcrypt.Cipher

    init(_ parameters: Parameters) throws(KDBXError) {
        switch parameters.cipher {
        case .chaCha20:
            let hash = Array(SHA512.hash(data: parameters.key))
            cipher = try Gcrypt.Cipher(.chaCha20, key: Array(hash[0..<32]), nonce: Array(hash[32..<44]))
        case .salsa20:
            cipher = try Gcrypt.Cipher(.salsa20, key: Array(SHA256.hash(data: parameters.key)), nonce: Self.salsa20Nonce)
        }
    }

    /// `ciphertext` XORed with the next `ciphertext.count` keystream bytes.
    func reveal(_ ciphertext: [UInt8]) throws(KDBXError) -> [UInt8] {
        var plain = ciphertext
        try cipher.transform(&plain)
        return plain
    }

    /// Moves past `count` keystream bytes: a protected value that is not needed (an attachment),
    /// without holding it.
    func skip(_ count: Int) throws(KDBXError) {
        var left = count
        var zeros = [UInt8](repeating: 0, count: min(count, 1 << 16))
        while left > 0 {
            let step = min(left, zeros.count)
            try cipher.transform(&zeros, count: step)
            left -= step
        }
    }
}
