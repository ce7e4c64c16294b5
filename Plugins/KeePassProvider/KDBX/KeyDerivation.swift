internal import CArgon2
internal import Crypto

/// How the composite key becomes the transformed key: AES-KDF or Argon2 (d or id).
enum KeyDerivation: Sendable, Equatable {
    case aes(seed: [UInt8], rounds: UInt64)
    case argon2(Argon2)

    /// Argon2's parameters as KDBX 4 stores them.
    struct Argon2: Sendable, Equatable {
        enum Variant: Sendable { case d, id }
        let variant: Variant
        let salt: [UInt8]
        let iterations: UInt32
        let memoryKiB: UInt32
        let parallelism: UInt32
        let version: UInt32
        let secret: [UInt8]?
        let associatedData: [UInt8]?
    }

    static let aesKDBX3UUID: [UInt8] = [0xC9, 0xD9, 0xF3, 0x9A, 0x62, 0x8A, 0x44, 0x60, 0xBF, 0x74, 0x0D, 0x08, 0xC1, 0x8A, 0x4F, 0xEA]
    static let aesKDBX4UUID: [UInt8] = [0x7C, 0x02, 0xBB, 0x82, 0x79, 0xA7, 0x4A, 0xC0, 0x92, 0x7D, 0x11, 0x4A, 0x00, 0x64, 0x82, 0x38]
    static let argon2dUUID: [UInt8] = [0xEF, 0x63, 0x6D, 0xDF, 0x8C, 0x29, 0x44, 0x4B, 0x91, 0xF7, 0xA9, 0xA4, 0x03, 0xE3, 0x0A, 0x0C]
    static let argon2idUUID: [UInt8] = [0x9E, 0x29, 0x8B, 0x19, 0x56, 0xDB, 0x47, 0x73, 0xB2, 0x3D, 0xFC, 0x3E, 0xC6, 0xF0, 0xA1, 0xE6]

    /// The most this reader asks of a machine: 4 GiB of Argon2 memory, 64 lanes (a hostile header
    /// must not make the provider allocate without bound).
    static let maximumMemoryKiB: UInt64 = 4 << 20
    static let maximumParallelism: UInt64 = 64

    /// The KDF a KDBX 4 header's parameters name.
    init(parameters: VariantDictionary) throws(KDBXError) {
        guard let uuid = parameters.bytes("$UUID") else { throw KDBXError(.corrupt, "the key derivation parameters name no algorithm: the file is damaged") }
        func required(_ key: String) throws(KDBXError) -> UInt64 {
            guard let value = parameters.number(key) else { throw KDBXError(.corrupt, "the key derivation parameter \(key) is missing: the file is damaged") }
            return value
        }
        switch uuid {
        case Self.aesKDBX3UUID, Self.aesKDBX4UUID:
            guard let seed = parameters.bytes("S"), seed.count == 32 else { throw KDBXError(.corrupt, "the AES-KDF seed is missing or not 32 bytes: the file is damaged") }
            self = .aes(seed: seed, rounds: try required("R"))
        case Self.argon2dUUID, Self.argon2idUUID:
            guard let salt = parameters.bytes("S"), salt.count >= 8 else { throw KDBXError(.corrupt, "the Argon2 salt is missing or too short: the file is damaged") }
            let memory = try required("M") / 1024
            let parallelism = try required("P")
            let iterations = try required("I")
            let version = parameters.number("V") ?? 0x13
            guard (8...Self.maximumMemoryKiB).contains(memory), (1...Self.maximumParallelism).contains(parallelism),
                  (1...UInt64(UInt32.max)).contains(iterations), version == 0x10 || version == 0x13 else {
                throw KDBXError(.unsupported, """
                    the database's Argon2 parameters are out of range (memory \(memory) KiB, parallelism \(parallelism), \
                    iterations \(iterations), version \(version)); this reader allows up to 4 GiB and 64 lanes
                    """)
            }
            self = .argon2(Argon2(
                variant: uuid == Self.argon2dUUID ? .d : .id, salt: salt, iterations: UInt32(iterations), memoryKiB: UInt32(memory),
                parallelism: UInt32(parallelism), version: UInt32(version), secret: parameters.bytes("K"), associatedData: parameters.bytes("A")))
        default:
            throw KDBXError(.unsupported, "the database uses a key derivation this reader does not know; choose Argon2 or AES-KDF in KeePassXC's database settings")
        }
    }

    /// The 32-byte transformed key of `compositeKey`.
    func transform(_ compositeKey: [UInt8]) throws(KDBXError) -> [UInt8] {
        switch self {
        case .aes(let seed, let rounds):
            let transformed = try Gcrypt.aesECBRounds(key: seed, compositeKey, rounds: rounds)
            return Array(SHA256.hash(data: transformed))
        case .argon2(let parameters):
            return try parameters.hash(compositeKey)
        }
    }
}

extension KeyDerivation.Argon2 {
    /// libargon2's raw hash of `password` with these parameters (32 bytes).
    func hash(_ password: [UInt8]) throws(KDBXError) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 32)
        var password = password
        var salt = salt
        var secret = secret ?? []
        var associated = associatedData ?? []
        let status: Int32 = output.withUnsafeMutableBufferPointer { out in
            password.withUnsafeMutableBufferPointer { pwd in
                salt.withUnsafeMutableBufferPointer { salt in
                    secret.withUnsafeMutableBufferPointer { secret in
                        associated.withUnsafeMutableBufferPointer { ad in
                            var context = argon2_context(
                                out: out.baseAddress, outlen: UInt32(out.count),
                                pwd: pwd.baseAddress, pwdlen: UInt32(pwd.count),
                                salt: salt.baseAddress, saltlen: UInt32(salt.count),
                                secret: secret.baseAddress, secretlen: UInt32(secret.count),
                                ad: ad.baseAddress, adlen: UInt32(ad.count),
                                t_cost: iterations, m_cost: memoryKiB, lanes: parallelism, threads: min(parallelism, 4),
                                version: version, allocate_cbk: nil, free_cbk: nil, flags: 0)  // 0: ARGON2_DEFAULT_FLAGS
                            return argon2_ctx(&context, variant == .d ? Argon2_d : Argon2_id)
                        }
                    }
                }
            }
        }
        for index in password.indices { password[index] = 0 }
        guard status == ARGON2_OK.rawValue else {
            let reason = String(cString: argon2_error_message(status))
            throw KDBXError(.unsupported, "Argon2 failed with the database's parameters (\(reason)); it may need more memory than this machine allows")
        }
        return output
    }
}
