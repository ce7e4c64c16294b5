internal import AutofillCore
internal import Crypto
internal import _CryptoExtras

/// The scrypt cost parameters of a vault, recorded in its header.
///
/// Memory is `128 · r · N` bytes; time grows with it. ``standard`` (the default of earlier releases)
/// takes about 0.2 s on a 2-core machine in a release build (docs/VAULT.md has the measurements).
/// New vaults use Argon2id (``KeyDerivation/standard``); scrypt vaults still open.
public struct ScryptParameters: Hashable, Sendable, CustomStringConvertible {
    /// log2 of the CPU/memory cost N.
    public var log2N: UInt8
    /// The block size r.
    public var r: UInt8
    /// The parallelism p.
    public var p: UInt8

    /// Creates parameters; ``check()`` says whether a vault may use them.
    public init(log2N: UInt8, r: UInt8 = 8, p: UInt8 = 1) {
        self.log2N = log2N
        self.r = r
        self.p = p
    }

    /// What earlier releases made vaults with: N = 2^16, r = 8, p = 1 (64 MiB).
    public static let standard = ScryptParameters(log2N: 16)

    /// The smallest N a vault may use (2^10, 1 MiB with r = 8): earlier releases made vaults this
    /// cheap for tests and demos, so they still open; a new key needs more (``KeyDerivation/check(_:floor:)``).
    public static let minimumLog2N: UInt8 = 10
    /// The most memory a vault's parameters may ask for (1 GiB), so a crafted header cannot exhaust memory.
    public static let maximumMemory = 1 << 30

    /// The memory scrypt needs, in bytes.
    public var memory: Int { 128 * Int(r) * (1 << Int(log2N)) * Int(p) }

    public var description: String { "scrypt N=2^\(log2N) r=\(r) p=\(p)" }

    /// Checks the parameters are within what this release derives keys with.
    public func check() throws(VaultError) {
        guard log2N >= Self.minimumLog2N, log2N <= 24, (1...32).contains(r), (1...16).contains(p),
            memory <= Self.maximumMemory
        else {
            throw VaultError(.invalidInput,
                             "\(self) is out of range: N from 2^\(Self.minimumLog2N), r 1–32, p 1–16, at most 1 GiB of memory")
        }
    }

    /// Derives the 256-bit vault key from the password's UTF-8 `bytes` and `salt` (``KeyDerivation`` checks first).
    func deriveKey(bytes: [UInt8], salt: [UInt8]) throws(VaultError) -> VaultKey {
        let key: SymmetricKey
        do {
            key = try KDF.Scrypt.deriveKey(
                from: bytes, salt: salt, outputByteCount: 32, rounds: 1 << Int(log2N), blockSize: Int(r),
                parallelism: Int(p))
        } catch {
            throw VaultError(.io, "scrypt could not derive the vault key (\(self)): \(error)")
        }
        // swift-crypto zeroes its own copy when `key` is freed, at the end of this function.
        let storage = try LockedBytes(count: key.bitCount / 8)
        storage.withUnsafeMutableBytes { target in key.withUnsafeBytes { target.copyMemory(from: $0) } }
        return VaultKey(storage)
    }
}

/// The key that opens one vault (derived from its master password and salt); prints as `<REDACTED>`.
///
/// Its 32 bytes live in ``LockedBytes`` (locked pages, left out of core dumps, zeroed by
/// ``wipe()`` and when the last copy of the key is gone). Each encryption or decryption makes a
/// short-lived swift-crypto `SymmetricKey` from them, which swift-crypto zeroes when it is freed.
public struct VaultKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The key bytes.
    let storage: LockedBytes

    init(_ storage: LockedBytes) {
        self.storage = storage
    }

    /// Calls `body` with a swift-crypto key made from the bytes, for one encryption or decryption.
    func withSymmetricKey<Result>(_ body: (SymmetricKey) throws -> Result) rethrows -> Result {
        let key = storage.withUnsafeBytes { SymmetricKey(data: $0) }
        return try body(key)
    }

    /// Zeroes the key bytes: every vault holding this key stops opening (the provider's lock).
    public func wipe() {
        storage.wipe()
    }

    /// Whether ``wipe()`` ran.
    public var isWiped: Bool { storage.isWiped }

    /// Why the key's pages are not locked in memory (`mlock`'s errno), or nil when they are.
    public var memoryLockError: Int32? { storage.memoryLockError }

    public var description: String { "<REDACTED>" }
    public var debugDescription: String { "VaultKey(<REDACTED>)" }
}

extension VaultKey: CustomReflectable {
    public var customMirror: Mirror { Mirror(self, children: ["key": "<REDACTED>"]) }
}
