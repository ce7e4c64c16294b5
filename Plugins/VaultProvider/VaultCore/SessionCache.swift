internal import Crypto
internal import FoundationEssentials
internal import Glibc

/// The unlocked-session cache: after an unlock, the vault key is kept with an expiry in a private
/// folder, so that later processes (every autofill command loads the plugin anew) open the vault
/// without asking for the master password until the session expires or `autofill-vault lock` runs.
///
/// The folder is the Vault's private runtime folder, `$XDG_RUNTIME_DIR/autofill/providers/org.autofill.vault/`
/// (a per-user tmpfs on systemd systems; the only folder of the runtime tree its sandbox may reach,
/// docs/SANDBOX.md). Without an absolute `XDG_RUNTIME_DIR` there is no session at all (never a
/// folder on disk such as /tmp): every use asks for the master password. Folders are created 0700 and
/// refused unless each is a real folder (not a symbolic link) owned by this user and closed to others. One file (0600) per vault path holds
/// the canonical path, the salt, the key and the expiry; an expired, mismatched or unsafe file is
/// deleted and the vault counts as locked. Threat model: docs/VAULT.md.
public struct SessionCache: Sendable {
    /// The default session length in seconds (the provider's `UnlockTimeoutSeconds` setting).
    public static let defaultTimeout = 300
    /// The longest session allowed, in seconds (one day).
    public static let maximumTimeout = 86_400

    /// The folder holding the sessions.
    public let folder: String
    /// The current time in seconds since 1970 (the wall clock; tests replace it).
    let now: @Sendable () -> Double

    /// A cache in `folder`.
    public init(folder: String) {
        self.init(folder: folder, now: Self.wallClock)
    }

    init(folder: String, now: @escaping @Sendable () -> Double) {
        self.folder = folder
        self.now = now
    }

    /// The cache in the standard folder for `environment` (`XDG_RUNTIME_DIR`).
    public static func standard(environment: [String: String]) -> SessionCache {
        SessionCache(folder: standardFolder(environment: environment))
    }

    /// The cache in the standard folder for this process's environment.
    public static func standard() -> SessionCache {
        standard(environment: ProcessInfo.processInfo.environment)
    }

    /// The Vault's provider id: its runtime folder is named after it.
    public static let providerID = "org.autofill.vault"

    /// `$XDG_RUNTIME_DIR/autofill/providers/org.autofill.vault` when XDG_RUNTIME_DIR is an absolute
    /// path; else "" (no sessions: see the type's documentation).
    public static func standardFolder(environment: [String: String]) -> String {
        guard let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") else { return "" }
        return (runtime.hasSuffix("/") ? runtime : runtime + "/") + "autofill/providers/\(providerID)"
    }

    /// False when there is no runtime folder to keep sessions in.
    public var isAvailable: Bool { !folder.isEmpty }

    @Sendable static func wallClock() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// The record kept for one unlocked vault.
    private struct Record: Codable {
        var version: Int
        var vault: String
        var salt: String
        var key: String
        var created: Double
        var expires: Double
    }

    // MARK: Using the cache

    /// Keeps `vault`'s key for `timeout` seconds. A timeout of 0 keeps nothing (and forgets an older session).
    public func store(_ vault: Vault, timeout: Int) throws(VaultError) {
        guard timeout > 0 else {
            _ = try? remove(for: vault.path)
            return
        }
        guard timeout <= Self.maximumTimeout else {
            throw VaultError(.invalidInput, "an unlock timeout of \(timeout) s is longer than the \(Self.maximumTimeout) s allowed")
        }
        guard let folderFD = try openFolder(create: true) else {
            throw VaultError(.io, "the session folder \(folder) vanished while it was being created")
        }
        defer { close(folderFD) }
        removeExpired(in: folderFD)
        let time = now()
        var keyBytes = vault.key.bytes
        defer { for index in keyBytes.indices { keyBytes[index] = 0 } }
        let record = Record(
            version: 1, vault: Self.canonicalPath(vault.path), salt: Data(vault.header.salt).base64EncodedString(),
            key: Data(keyBytes).base64EncodedString(), created: time, expires: time + Double(timeout))
        var bytes: [UInt8]
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            bytes = Array(try encoder.encode(record))
        } catch {
            throw VaultError(.io, "cannot encode the session of \(vault.path)")
        }
        defer { for index in bytes.indices { bytes[index] = 0 } }
        try writeFile(bytes, named: Self.fileName(for: vault.path), in: folderFD)
    }

    /// The cached key of the vault at `path` whose header is `header`, or nil when it is locked.
    /// `maximumAge` (seconds since the unlock) tightens the session's own expiry. Expired, mismatched
    /// and unsafe session files are deleted. Throws only when the folder itself is unsafe.
    public func key(for path: String, header: VaultHeader, maximumAge: Int? = nil) throws(VaultError) -> VaultKey? {
        guard let folderFD = try openFolder(create: false) else { return nil }
        defer { close(folderFD) }
        let name = Self.fileName(for: path)
        guard let record = readRecord(named: name, in: folderFD, as: Record.self) else { return nil }
        let time = now()
        var expires = record.expires
        if let maximumAge { expires = min(expires, record.created + Double(maximumAge)) }
        guard record.version == 1, record.vault == Self.canonicalPath(path),
            record.salt == Data(header.salt).base64EncodedString(),
            time < expires, time >= record.created - 60,  // a clock set back by more than a minute ends the session
            record.expires - record.created <= Double(Self.maximumTimeout),
            let keyData = Data(base64Encoded: record.key), let key = VaultKey(bytes: Array(keyData))
        else {
            unlinkat(folderFD, name, 0)
            return nil
        }
        return key
    }

    /// The vault at `path` opened with its cached key, or nil when it is locked. A cached key that no
    /// longer opens the vault is deleted.
    public func unlockedVault(at path: String, maximumAge: Int? = nil) throws(VaultError) -> Vault? {
        let header = try Vault.header(at: path)
        guard let key = try key(for: path, header: header, maximumAge: maximumAge) else { return nil }
        do {
            return try Vault.open(at: path, key: key)
        } catch where error.code == .wrongPasswordOrModified {
            _ = try? remove(for: path)
            return nil
        }
    }

    /// Ends the session of the vault at `path`, and forgets its fill records; returns whether there was a session.
    @discardableResult
    public func remove(for path: String) throws(VaultError) -> Bool {
        guard let folderFD = try openFolder(create: false) else { return false }
        defer { close(folderFD) }
        unlinkat(folderFD, Self.fillsFileName(for: path), 0)
        return unlinkat(folderFD, Self.fileName(for: path), 0) == 0
    }

    /// Ends every session in the folder, and forgets every fill record; returns how many sessions there were.
    @discardableResult
    public func removeAll() throws(VaultError) -> Int {
        guard let folderFD = try openFolder(create: false) else { return 0 }
        defer { close(folderFD) }
        for name in try sessionFiles(in: folderFD, suffix: ".fills") { unlinkat(folderFD, name, 0) }
        return try sessionFiles(in: folderFD).filter { unlinkat(folderFD, $0, 0) == 0 }.count
    }

    // MARK: Names

    /// The vault's path made absolute and free of symbolic links (as far as it exists).
    static func canonicalPath(_ path: String) -> String {
        if let resolved = realpath(path, nil) {
            defer { free(resolved) }
            return String(cString: resolved)
        }
        if path.hasPrefix("/") { return path }
        guard let cwd = getcwd(nil, 0) else { return path }
        defer { free(cwd) }
        return "\(String(cString: cwd))/\(path)"
    }

    /// The session file's name: a hash of the canonical path (the salt is checked inside).
    static func fileName(for path: String) -> String {
        let digest = SHA256.hash(data: Array(canonicalPath(path).utf8))
        return "vault-" + digest.prefix(16).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() + ".session"
    }
}
