/// The vault file's header: what it takes to derive the key, in the clear but authenticated.
///
/// Format version 1 (scrypt; the vaults of earlier releases, still read and written):
///
/// ```
/// offset  size  field
///  0       8    magic "AFVAULT" 0x00
///  8       1    format version (1)
///  9       1    key derivation (1 = scrypt)
/// 10       1    log2 N
/// 11       1    r
/// 12       1    p
/// 13       1    salt length (16)
/// 14      16    salt
/// 30      12    AES-GCM nonce
/// 42       …    AES-256-GCM ciphertext of the JSON payload, then its 16-byte tag
/// ```
///
/// Format version 2 (Argon2id; what new vaults and `autofill-vault passwd` write):
///
/// ```
/// offset  size  field
///  0       8    magic "AFVAULT" 0x00
///  8       1    format version (2)
///  9       1    key derivation (2 = Argon2id)
/// 10       1    Argon2 version (0x13)
/// 11       4    memory m in KiB, big-endian
/// 15       4    passes t, big-endian
/// 19       1    lanes p
/// 20       1    salt length (16)
/// 21      16    salt
/// 37      12    AES-GCM nonce
/// 49       …    AES-256-GCM ciphertext of the JSON payload, then its 16-byte tag
/// ```
///
/// The header bytes are the AES-GCM additional authenticated data, so changing any of them makes
/// the file fail to open, as changing the ciphertext does. Parameters are checked
/// (``KeyDerivation/check(_:floor:)``) before any key is derived.
public struct VaultHeader: Hashable, Sendable {
    /// The newest file format version this release writes and reads (it reads 1 and 2).
    public static let formatVersion: UInt8 = 2
    static let magic: [UInt8] = Array("AFVAULT".utf8) + [0]
    static let scryptID: UInt8 = 1
    static let argon2idID: UInt8 = 2
    static let saltLength = 16
    static let nonceLength = 12
    static let tagLength = 16

    /// How the key is derived: the function and its cost parameters.
    public var keyDerivation: KeyDerivation
    /// The key derivation's random salt (16 bytes).
    public var salt: [UInt8]
    /// The nonce the payload was sealed with (12 bytes, new for every save).
    var nonce: [UInt8]

    init(keyDerivation: KeyDerivation, salt: [UInt8], nonce: [UInt8]) {
        self.keyDerivation = keyDerivation
        self.salt = salt
        self.nonce = nonce
    }

    /// The file format version of this header: 1 for scrypt, 2 for Argon2id.
    public var version: UInt8 {
        if case .scrypt = keyDerivation { 1 } else { 2 }
    }

    /// The header's size in bytes.
    var size: Int { Self.size(version: version) }

    static func size(version: UInt8) -> Int {
        8 + (version == 1 ? 6 : 13) + saltLength + nonceLength
    }

    /// The header's bytes, as written and authenticated.
    var bytes: [UInt8] {
        var bytes = Self.magic + [version]
        switch keyDerivation {
        case .scrypt(let parameters):
            bytes += [Self.scryptID, parameters.log2N, parameters.r, parameters.p]
        case .argon2id(let parameters):
            bytes += [Self.argon2idID, Argon2Parameters.version] + Self.bigEndian(parameters.memoryKiB)
                + Self.bigEndian(parameters.iterations) + [parameters.parallelism]
        }
        return bytes + [UInt8(Self.saltLength)] + salt + nonce
    }

    /// Reads the header at the start of `file` (the vault at `path`), checking every field and the
    /// parameters against the ceiling and `floor` (a header out of range is refused before any key is derived).
    init(reading file: [UInt8], path: String, floor: KeyDerivation.Floor = .current) throws(VaultError) {
        guard file.count >= Self.magic.count, Array(file.prefix(Self.magic.count)) == Self.magic else {
            throw VaultError(.corrupt, "\(path) is not an autofill vault (it does not start with AFVAULT); check the path")
        }
        guard file.count > 8 else { throw Self.truncated(path) }
        let version = file[8]
        guard version == 1 || version == 2 else {
            throw VaultError(.unsupportedVersion,
                             "\(path) is a vault of format version \(version); this autofill reads versions 1 and 2: update autofill")
        }
        let size = Self.size(version: version)
        guard file.count >= size + Self.tagLength else { throw Self.truncated(path) }
        let expected = version == 1 ? Self.scryptID : Self.argon2idID
        guard file[9] == expected else {
            throw VaultError(.corrupt, "\(path): unknown key derivation \(file[9]) in a version \(version) header; the file is damaged")
        }
        let saltAt = size - Self.nonceLength - Self.saltLength
        guard Int(file[saltAt - 1]) == Self.saltLength else {
            throw VaultError(.corrupt, "\(path): salt length \(file[saltAt - 1]) in the header; the file is damaged")
        }
        if version == 1 {
            keyDerivation = .scrypt(ScryptParameters(log2N: file[10], r: file[11], p: file[12]))
        } else {
            guard file[10] == Argon2Parameters.version else {
                throw VaultError(.unsupportedVersion, "\(path) uses Argon2 version \(file[10]); this autofill derives with 0x13: update autofill")
            }
            keyDerivation = .argon2id(Argon2Parameters(
                memoryKiB: Self.readBigEndian(file, at: 11), iterations: Self.readBigEndian(file, at: 15), parallelism: file[19]))
        }
        do {
            try keyDerivation.check(.reading, floor: floor)
        } catch {
            throw VaultError(.corrupt, """
                \(path) was not opened: the key derivation in its header, \(error.message). No key was derived; the file \
                is damaged, was changed, or was made by a test build
                """)
        }
        salt = Array(file[saltAt..<(saltAt + Self.saltLength)])
        nonce = Array(file[(saltAt + Self.saltLength)..<size])
    }

    private static func truncated(_ path: String) -> VaultError {
        VaultError(.corrupt, "\(path) is truncated: it ends inside the vault header; restore it from a backup")
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    private static func readBigEndian(_ file: [UInt8], at offset: Int) -> UInt32 {
        file[offset..<(offset + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }
}
