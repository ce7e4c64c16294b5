/// The vault file's header: what it takes to derive the key, in the clear but authenticated.
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
/// The 42 header bytes are the AES-GCM additional authenticated data, so changing any of them makes
/// the file fail to open, as changing the ciphertext does.
public struct VaultHeader: Hashable, Sendable {
    /// The file format version this release writes and reads.
    public static let formatVersion: UInt8 = 1
    static let magic: [UInt8] = Array("AFVAULT".utf8) + [0]
    static let scryptID: UInt8 = 1
    static let saltLength = 16
    static let nonceLength = 12
    static let tagLength = 16
    /// The header's size in bytes.
    static let size = 8 + 6 + saltLength + nonceLength

    /// The key derivation's cost parameters.
    public var parameters: ScryptParameters
    /// The key derivation's random salt (16 bytes).
    public var salt: [UInt8]
    /// The nonce the payload was sealed with (12 bytes, new for every save).
    var nonce: [UInt8]

    init(parameters: ScryptParameters, salt: [UInt8], nonce: [UInt8]) {
        self.parameters = parameters
        self.salt = salt
        self.nonce = nonce
    }

    /// The header's bytes, as written and authenticated.
    var bytes: [UInt8] {
        Self.magic + [Self.formatVersion, Self.scryptID, parameters.log2N, parameters.r, parameters.p, UInt8(Self.saltLength)]
            + salt + nonce
    }

    /// Reads the header at the start of `file` (the vault at `path`), checking every field.
    init(reading file: [UInt8], path: String) throws(VaultError) {
        guard file.count >= Self.magic.count, Array(file.prefix(Self.magic.count)) == Self.magic else {
            throw VaultError(.corrupt, "\(path) is not an autofill vault (it does not start with AFVAULT); check the path")
        }
        guard file.count > 8 else { throw Self.truncated(path) }
        guard file[8] == Self.formatVersion else {
            throw VaultError(.unsupportedVersion,
                             "\(path) is a vault of format version \(file[8]); this autofill reads version \(Self.formatVersion)")
        }
        guard file.count >= Self.size + Self.tagLength else { throw Self.truncated(path) }
        guard file[9] == Self.scryptID else {
            throw VaultError(.corrupt, "\(path): unknown key derivation \(file[9]) in the header; the file is damaged")
        }
        guard Int(file[13]) == Self.saltLength else {
            throw VaultError(.corrupt, "\(path): salt length \(file[13]) in the header; the file is damaged")
        }
        parameters = ScryptParameters(log2N: file[10], r: file[11], p: file[12])
        do {
            try parameters.check()
        } catch {
            throw VaultError(.corrupt, "\(path): the header's \(parameters) is out of range; the file is damaged or was changed")
        }
        salt = Array(file[14..<30])
        nonce = Array(file[30..<Self.size])
    }

    private static func truncated(_ path: String) -> VaultError {
        VaultError(.corrupt, "\(path) is truncated: it ends inside the vault header; restore it from a backup")
    }
}
