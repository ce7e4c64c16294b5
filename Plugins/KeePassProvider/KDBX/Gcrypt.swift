internal import CGcrypt

/// The one place libgcrypt is called: AES-256 (ECB for AES-KDF, CBC for the payload) and the
/// ChaCha20 and Salsa20 stream ciphers, which swift-crypto offers only inside AEAD constructions.
enum Gcrypt {
    /// Initializes libgcrypt once: a library (this plugin) calls its version check, which initializes
    /// it, and leaves `GCRYCTL_INITIALIZATION_FINISHED` to the program.
    private static let ready: Bool = gcry_check_version(GCRYPT_VERSION) != nil

    /// `data` transformed by `algorithm` in `mode` with `key` and `iv` (nil: none); decrypts when `decrypt`.
    static func run(
        _ algorithm: Int32, _ mode: Int32, key: [UInt8], iv: [UInt8]?, _ data: [UInt8], rounds: UInt64 = 1, decrypt: Bool
    ) throws(KDBXError) -> [UInt8] {
        guard ready else { throw KDBXError(.unsupported, "libgcrypt could not be initialized (its version is older than the one autofill was built with)") }
        var handle: gcry_cipher_hd_t?
        guard gcry_cipher_open(&handle, algorithm, mode, 0) == 0, let handle else {
            throw KDBXError(.unsupported, "libgcrypt has no cipher \(algorithm) in mode \(mode)")
        }
        defer { gcry_cipher_close(handle) }
        guard gcry_cipher_setkey(handle, key, key.count) == 0 else { throw KDBXError(.corrupt, "a cipher key of \(key.count) bytes was refused") }
        if let iv, gcry_cipher_setiv(handle, iv, iv.count) != 0 {
            throw KDBXError(.corrupt, "a cipher IV of \(iv.count) bytes was refused: the database header is damaged")
        }
        var buffer = data
        let status: gcry_error_t = buffer.withUnsafeMutableBytes { raw in
            guard let base = raw.baseAddress, raw.count > 0 else { return 0 }
            for _ in 0..<rounds {
                let status = decrypt ? gcry_cipher_decrypt(handle, base, raw.count, nil, 0) : gcry_cipher_encrypt(handle, base, raw.count, nil, 0)
                if status != 0 { return status }
            }
            return 0
        }
        guard status == 0 else { throw KDBXError(.corrupt, "the encrypted payload's length does not fit its cipher: the file is truncated or damaged") }
        return buffer
    }

    /// AES-256-CBC decryption; the PKCS#7 padding is left for ``removePadding(_:)``.
    static func aesCBCDecrypt(key: [UInt8], iv: [UInt8], _ data: [UInt8]) throws(KDBXError) -> [UInt8] {
        guard !data.isEmpty, data.count % 16 == 0 else {
            throw KDBXError(.corrupt, "the encrypted payload is not a whole number of AES blocks: the file is truncated or damaged")
        }
        return try run(Int32(GCRY_CIPHER_AES256.rawValue), Int32(GCRY_CIPHER_MODE_CBC.rawValue), key: key, iv: iv, data, decrypt: true)
    }

    /// `plain` without its PKCS#7 padding.
    static func removePadding(_ plain: [UInt8]) throws(KDBXError) -> [UInt8] {
        let padding = Int(plain.last ?? 0)
        guard (1...16).contains(padding), plain.count >= padding, plain.suffix(padding).allSatisfy({ Int($0) == padding }) else {
            throw KDBXError(.corrupt, "the decrypted payload ends without its padding: the file is truncated or damaged (restore it from a backup)")
        }
        return Array(plain.dropLast(padding))
    }

    /// ChaCha20 (RFC 7539: 32-byte key, 12-byte nonce) or Salsa20 (8-byte nonce) keystream XORed with `data`.
    static func stream(_ cipher: StreamCipher, key: [UInt8], nonce: [UInt8], _ data: [UInt8]) throws(KDBXError) -> [UInt8] {
        let algorithm = cipher == .chaCha20 ? GCRY_CIPHER_CHACHA20.rawValue : GCRY_CIPHER_SALSA20.rawValue
        return try run(Int32(algorithm), Int32(GCRY_CIPHER_MODE_STREAM.rawValue), key: key, iv: nonce, data, decrypt: true)
    }

    /// `block` (32 bytes) encrypted `rounds` times with AES-256-ECB under `key`: AES-KDF's transform.
    static func aesECBRounds(key: [UInt8], _ block: [UInt8], rounds: UInt64) throws(KDBXError) -> [UInt8] {
        try run(Int32(GCRY_CIPHER_AES256.rawValue), Int32(GCRY_CIPHER_MODE_ECB.rawValue), key: key, iv: nil, block, rounds: rounds, decrypt: false)
    }

    enum StreamCipher { case chaCha20, salsa20 }
}
