internal import CGcrypt

/// The one place libgcrypt is called: AES-256 (ECB for AES-KDF, CBC for the payload), Twofish-CBC,
/// and the ChaCha20 and Salsa20 stream ciphers, which swift-crypto offers only inside AEAD constructions.
enum Gcrypt {
    /// Initializes libgcrypt once: a library (this plugin) calls its version check, which initializes
    /// it, and leaves `GCRYCTL_INITIALIZATION_FINISHED` to the program.
    fileprivate static let ready: Bool = gcry_check_version(GCRYPT_VERSION) != nil

    /// `data` transformed by `algorithm` in `mode` with `key` and `iv` (nil: none); decrypts when `decrypt`.
    static func run(
        _ algorithm: Int32, _ mode: Int32, key: [UInt8], iv: [UInt8]?, _ data: [UInt8], rounds: UInt64 = 1, decrypt: Bool
    ) throws(KDBXError) -> [UInt8] {
        let handle = try Cipher(algorithm, mode, key: key, iv: iv)
        var buffer = data
        for _ in 0..<rounds { try handle.transform(&buffer, decrypt: decrypt) }
        return buffer
    }

    /// ChaCha20 (RFC 7539: 32-byte key, 12-byte nonce) or Salsa20 (8-byte nonce) keystream XORed with `data`.
    static func stream(_ cipher: StreamCipher, key: [UInt8], nonce: [UInt8], _ data: [UInt8]) throws(KDBXError) -> [UInt8] {
        try run(cipher.algorithm, Int32(GCRY_CIPHER_MODE_STREAM.rawValue), key: key, iv: nonce, data, decrypt: true)
    }

    /// `block` (32 bytes) encrypted `rounds` times with AES-256-ECB under `key`: AES-KDF's transform.
    static func aesECBRounds(key: [UInt8], _ block: [UInt8], rounds: UInt64) throws(KDBXError) -> [UInt8] {
        try run(Int32(GCRY_CIPHER_AES256.rawValue), Int32(GCRY_CIPHER_MODE_ECB.rawValue), key: key, iv: nil, block, rounds: rounds, decrypt: false)
    }

    enum StreamCipher {
        case chaCha20, salsa20

        var algorithm: Int32 { Int32(self == .chaCha20 ? GCRY_CIPHER_CHACHA20.rawValue : GCRY_CIPHER_SALSA20.rawValue) }
    }

    /// An open cipher whose state (CBC's last block, a stream's position) carries from one call to
    /// the next, so a payload is decrypted piece by piece.
    final class Cipher {
        private let handle: gcry_cipher_hd_t

        init(_ algorithm: Int32, _ mode: Int32, key: [UInt8], iv: [UInt8]?) throws(KDBXError) {
            guard Gcrypt.ready else { throw KDBXError(.unsupported, "libgcrypt could not be initialized (its version is older than the one autofill was built with)") }
            var opened: gcry_cipher_hd_t?
            guard gcry_cipher_open(&opened, algorithm, mode, 0) == 0, let opened else {
                throw KDBXError(.unsupported, "libgcrypt has no cipher \(algorithm) in mode \(mode)")
            }
            handle = opened
            guard gcry_cipher_setkey(handle, key, key.count) == 0 else { throw KDBXError(.corrupt, "a cipher key of \(key.count) bytes was refused") }
            if let iv, gcry_cipher_setiv(handle, iv, iv.count) != 0 {
                throw KDBXError(.corrupt, "a cipher IV of \(iv.count) bytes was refused: the database header is damaged")
            }
        }

        /// A stream cipher (`cipher`) keyed with `key` and `nonce`.
        convenience init(_ cipher: StreamCipher, key: [UInt8], nonce: [UInt8]) throws(KDBXError) {
            try self.init(cipher.algorithm, Int32(GCRY_CIPHER_MODE_STREAM.rawValue), key: key, iv: nonce)
        }

        deinit { gcry_cipher_close(handle) }

        /// Decrypts (or encrypts) the first `count` (nil: all) of `bytes` in place.
        func transform(_ bytes: inout [UInt8], count: Int? = nil, decrypt: Bool = true) throws(KDBXError) {
            let status: gcry_error_t = bytes.withUnsafeMutableBytes { raw in
                let size = min(count ?? raw.count, raw.count)
                guard let base = raw.baseAddress, size > 0 else { return 0 }
                return decrypt ? gcry_cipher_decrypt(handle, base, size, nil, 0) : gcry_cipher_encrypt(handle, base, size, nil, 0)
            }
            guard status == 0 else { throw KDBXError(.corrupt, "the encrypted payload's length does not fit its cipher: the file is truncated or damaged") }
        }
    }
}
