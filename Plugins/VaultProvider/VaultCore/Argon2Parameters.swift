internal import AutofillCore
internal import CArgon2

/// The Argon2id cost parameters of a vault (RFC 9106), recorded in its header.
///
/// Memory is ``memoryKiB`` KiB, filled ``iterations`` times by ``parallelism`` lanes. ``standard`` is
/// RFC 9106's second recommended option (section 4): 64 MiB, 3 passes, 4 lanes. Keys are derived by
/// libargon2, the reference implementation (Debian's libargon2-dev), Argon2 version 0x13.
public struct Argon2Parameters: Hashable, Sendable, CustomStringConvertible {
    /// The memory cost m, in KiB.
    public var memoryKiB: UInt32
    /// The number of passes t.
    public var iterations: UInt32
    /// The lanes p (threads).
    public var parallelism: UInt8

    /// Creates parameters; ``KeyDerivation/check(_:floor:)`` says whether a vault may use them.
    public init(memoryKiB: UInt32, iterations: UInt32, parallelism: UInt8) {
        self.memoryKiB = memoryKiB
        self.iterations = iterations
        self.parallelism = parallelism
    }

    /// What new vaults use: RFC 9106's second recommended option, m = 64 MiB, t = 3, p = 4.
    public static let standard = Argon2Parameters(memoryKiB: 64 << 10, iterations: 3, parallelism: 4)

    /// The Argon2 version this release derives with and records (0x13, RFC 9106's).
    public static let version: UInt8 = 0x13

    /// The memory, in bytes.
    public var memory: Int { Int(memoryKiB) << 10 }

    public var description: String {
        let memory = memoryKiB % 1024 == 0 ? "\(memoryKiB >> 10) MiB" : "\(memoryKiB) KiB"
        return "Argon2id m=\(memory) t=\(iterations) p=\(parallelism)"
    }

    /// Derives the 256-bit vault key from the password's UTF-8 `bytes` and `salt`, straight into locked memory.
    func deriveKey(bytes: [UInt8], salt: [UInt8]) throws(VaultError) -> VaultKey {
        let storage = try LockedBytes(count: 32)
        let status = storage.withUnsafeMutableBytes { output in
            bytes.withUnsafeBytes { password in
                salt.withUnsafeBytes { salt in
                    argon2id_hash_raw(iterations, memoryKiB, UInt32(parallelism), password.baseAddress, password.count,
                                      salt.baseAddress, salt.count, output.baseAddress, output.count)
                }
            }
        }
        guard status == ARGON2_OK.rawValue else {
            storage.wipe()
            let reason = String(cString: argon2_error_message(status))
            throw VaultError(.io, "Argon2id could not derive the vault key (\(self)): \(reason)")
        }
        return VaultKey(storage)
    }
}
