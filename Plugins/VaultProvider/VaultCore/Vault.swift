public import AutofillCore
internal import Crypto
internal import FoundationEssentials

/// An unlocked vault: its file, the key that opens it, and its decrypted contents.
///
/// The file is the ``VaultHeader`` followed by the AES-256-GCM sealed JSON payload, with the header
/// as authenticated data. The key is derived from the master password with the header's
/// ``KeyDerivation`` (Argon2id; scrypt in vaults of earlier releases) and salt. Every ``save()`` seals
/// the payload with a new random nonce under the same key, and replaces the file atomically;
/// ``changeMasterPassword(at:current:new:keyDerivation:)`` replaces the salt, the key and the parameters.
public struct Vault: Sendable {
    /// The vault file.
    public let path: String
    /// The header: the key derivation's parameters and salt.
    public private(set) var header: VaultHeader
    /// The key derived from the master password.
    let key: VaultKey
    /// The decrypted entries; change them, then ``save()``.
    public var contents: VaultContents
    /// The stamp of the file these contents were read from or saved to (nil if it could not be taken).
    public private(set) var stamp: FileStamp?

    init(path: String, header: VaultHeader, key: VaultKey, contents: VaultContents, stamp: FileStamp? = nil) {
        self.path = path
        self.header = header
        self.key = key
        self.contents = contents
        self.stamp = stamp
    }

    /// Creates a new vault file at `path`, refusing to overwrite one; its key is derived with
    /// `keyDerivation`, which must meet this build's floor for writing (``KeyDerivation/check(_:floor:)``).
    public static func create(
        at path: String, password: Secret, keyDerivation: KeyDerivation = .standard, contents: VaultContents = VaultContents()
    ) throws(VaultError) -> Vault {
        guard !AtomicFile.exists(path) else {
            throw VaultError(.alreadyExists, "\(path) exists already; remove it first or choose another path with --vault")
        }
        try keyDerivation.check(.writing)
        let (header, key) = try newKey(password: password, keyDerivation: keyDerivation)
        var vault = Vault(path: path, header: header, key: key, contents: contents)
        try vault.save()
        return vault
    }

    /// Creates a new scrypt vault (format version 1), as earlier releases did.
    public static func create(
        at path: String, password: Secret, parameters: ScryptParameters, contents: VaultContents = VaultContents()
    ) throws(VaultError) -> Vault {
        try create(at: path, password: password, keyDerivation: .scrypt(parameters), contents: contents)
    }

    /// A new random salt and the key `password` derives with it: the header of a new key.
    static func newKey(password: Secret, keyDerivation: KeyDerivation) throws(VaultError) -> (VaultHeader, VaultKey) {
        var random = SystemRandomNumberGenerator()
        let salt = (0..<VaultHeader.saltLength).map { _ in UInt8.random(in: .min ... .max, using: &random) }
        let key = try keyDerivation.deriveKey(password: password, salt: salt)
        return (VaultHeader(keyDerivation: keyDerivation, salt: salt, nonce: []), key)
    }

    /// Opens the vault at `path` with its master password (derives the key: see ``KeyDerivation``).
    public static func open(at path: String, password: Secret) throws(VaultError) -> Vault {
        let (file, stamp) = try AtomicFile.readStamped(path)
        let header = try VaultHeader(reading: file, path: path)
        let key = try header.keyDerivation.deriveKey(password: password, salt: header.salt)
        return try open(file: file, header: header, key: key, path: path, stamp: stamp)
    }

    /// Opens the vault at `path` with a key derived earlier (the unlocked vault the provider holds).
    public static func open(at path: String, key: VaultKey) throws(VaultError) -> Vault {
        let (file, stamp) = try AtomicFile.readStamped(path)
        return try open(file: file, header: try VaultHeader(reading: file, path: path), key: key, path: path, stamp: stamp)
    }

    /// Reads the header of the vault at `path` only (no password needed).
    public static func header(at path: String) throws(VaultError) -> VaultHeader {
        try VaultHeader(reading: AtomicFile.read(path), path: path)
    }

    /// Decrypts `file` (the bytes of the vault at `path`, whose header is `header`) with `key`.
    static func open(file: [UInt8], header: VaultHeader, key: VaultKey, path: String, stamp: FileStamp?) throws(VaultError) -> Vault {
        let authenticated = file.prefix(header.size)
        let ciphertext = file[header.size..<(file.count - VaultHeader.tagLength)]
        let tag = file.suffix(VaultHeader.tagLength)
        var plaintext: Data
        do {
            let box = try AES.GCM.SealedBox(nonce: AES.GCM.Nonce(data: header.nonce), ciphertext: ciphertext, tag: tag)
            plaintext = try key.withSymmetricKey { try AES.GCM.open(box, using: $0, authenticating: authenticated) }
        } catch {
            throw .wrongPasswordOrModified(path)
        }
        defer { plaintext.resetBytes(in: 0..<plaintext.count) }
        let contents = try VaultContents.decode(plaintext, path: path)
        return Vault(path: path, header: header, key: key, contents: contents, stamp: stamp)
    }

    /// Seals the contents with a new nonce and replaces the file atomically (mode 0600).
    public mutating func save() throws(VaultError) {
        try save(failing: nil)
    }

    mutating func save(failing failurePoint: AtomicFile.FailurePoint?) throws(VaultError) {
        var payload = try contents.encoded()
        defer { payload.withUnsafeMutableBytes { raw in for index in raw.indices { raw[index] = 0 } } }
        let nonce = AES.GCM.Nonce()
        var sealedHeader = header
        sealedHeader.nonce = Array(nonce)
        let authenticated = sealedHeader.bytes
        let box: AES.GCM.SealedBox
        do {
            box = try key.withSymmetricKey { try AES.GCM.seal(payload, using: $0, nonce: nonce, authenticating: authenticated) }
        } catch {
            throw VaultError(.io, "cannot encrypt the vault \(path): \(error)")
        }
        stamp = try AtomicFile.write(authenticated + Array(box.ciphertext) + Array(box.tag), to: path, failing: failurePoint)
        header = sealedHeader
    }
}
