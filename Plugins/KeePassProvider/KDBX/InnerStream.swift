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
    }

    /// Salsa20's fixed nonce in KeePass.
    static let salsa20Nonce: [UInt8] = [0xE8, 0x30, 0x09, 0x4B, 0x97, 0x20, 0x5D, 0x2A]

    private let parameters: Parameters
    private let cipherKey: [UInt8]
    private let nonce: [UInt8]
    /// Keystream bytes made so far, and how many were used.
    private var keystream: [UInt8] = []
    private var used = 0

    init(_ parameters: Parameters) {
        self.parameters = parameters
        switch parameters.cipher {
        case .chaCha20:
            let hash = Array(SHA512.hash(data: parameters.key))
            cipherKey = Array(hash[0..<32])
            nonce = Array(hash[32..<44])
        case .salsa20:
            cipherKey = Array(SHA256.hash(data: parameters.key))
            nonce = Self.salsa20Nonce
        }
    }

    /// `ciphertext` XORed with the next `ciphertext.count` keystream bytes.
    func reveal(_ ciphertext: [UInt8]) throws(KDBXError) -> [UInt8] {
        if used + ciphertext.count > keystream.count {
            // Made again from the start, twice as long, each time it runs out (no cipher handle is kept).
            let size = (max(used + ciphertext.count, 2 * keystream.count, 4096) + 63) / 64 * 64
            keystream = try Gcrypt.stream(parameters.cipher, key: cipherKey, nonce: nonce, [UInt8](repeating: 0, count: size))
        }
        defer { used += ciphertext.count }
        return zip(ciphertext, keystream[used..<used + ciphertext.count]).map { $0 ^ $1 }
    }
}
