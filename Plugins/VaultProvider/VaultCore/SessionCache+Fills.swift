internal import Crypto
internal import FoundationEssentials
internal import Glibc

/// Fill records: which logins the plugin handed out recently, so that a conditional passkey
/// registration (automatic passkey upgrade) can require "this password was just used".
///
/// One file per vault next to its session, `vault-HASH.fills` (0600, written atomically under an
/// `flock` of the session folder). Each record is a time and a tag: HMAC-SHA256, under a key
/// derived from the vault key with HKDF, of the login's id, service and user, cut to 16 bytes.
/// Without the vault key the file shows only how many fills happened when, not which logins,
/// sites or users. Records older than ``maximumFillWindow`` are dropped on every write, and
/// at most ``maximumFillRecords`` are kept.
extension SessionCache {
    /// The longest "recently filled" window, in seconds (one hour); older records are dropped.
    public static let maximumFillWindow = 3600
    /// The most records a vault's file keeps (the newest).
    public static let maximumFillRecords = 128
    /// The largest fills file read.
    static let maximumFillsFileSize = 16 * 1024

    private struct FillFile: Codable {
        var version: Int
        var fills: [Fill]
    }

    private struct Fill: Codable {
        var tag: String
        var time: Double
    }

    /// Records that `login` of `vault` was handed out now.
    public func recordFill(of login: PasswordEntry, in vault: Vault) throws(VaultError) {
        guard let folderFD = try openFolder(create: true) else {
            throw VaultError(.io, "the session folder \(folder) vanished while it was being created")
        }
        defer { close(folderFD) }
        while flock(folderFD, LOCK_EX) != 0 {
            guard errno == EINTR else { throw AtomicFile.ioError("cannot lock the session folder \(folder)") }
        }
        defer { flock(folderFD, LOCK_UN) }
        let name = Self.fillsFileName(for: vault.path)
        let time = now()
        var fills = (readRecord(named: name, in: folderFD, as: FillFile.self, maximumSize: Self.maximumFillsFileSize)?.fills ?? [])
            .filter { $0.time > time - Double(Self.maximumFillWindow) && $0.time <= time + 60 }
        fills.append(Fill(tag: Self.fillTag(of: login, key: vault.key), time: time))
        fills = Array(fills.suffix(Self.maximumFillRecords))
        let bytes: [UInt8]
        do {
            bytes = Array(try JSONEncoder().encode(FillFile(version: 1, fills: fills)))
        } catch {
            throw VaultError(.io, "cannot encode the fill records of \(vault.path)")
        }
        try writeFile(bytes, named: name, in: folderFD)
    }

    /// Seconds since `login` of `vault` was last handed out, if it was within ``maximumFillWindow``.
    public func secondsSinceFill(of login: PasswordEntry, in vault: Vault) throws(VaultError) -> Double? {
        guard let folderFD = try openFolder(create: false) else { return nil }
        defer { close(folderFD) }
        guard let file = readRecord(named: Self.fillsFileName(for: vault.path), in: folderFD, as: FillFile.self,
                                    maximumSize: Self.maximumFillsFileSize)
        else { return nil }
        let tag = Self.fillTag(of: login, key: vault.key)
        let time = now()
        let latest = file.fills.filter { $0.tag == tag && $0.time <= time + 60 }.map(\.time).max()
        guard let latest, time - latest <= Double(Self.maximumFillWindow) else { return nil }
        return max(0, time - latest)
    }

    /// The fills file's name: like the session's, from the vault's canonical path.
    static func fillsFileName(for path: String) -> String {
        String(fileName(for: path).dropLast(".session".count)) + ".fills"
    }

    /// The record's tag: HMAC-SHA256(HKDF(vault key), id ‖ service type ‖ service ‖ user), 16 bytes, hex.
    static func fillTag(of login: PasswordEntry, key: VaultKey) -> String {
        let tagKey = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: key.symmetricKey, info: Array("autofill vault fill records v1".utf8), outputByteCount: 32)
        var message: [UInt8] = []
        for part in [login.id, login.service.type.rawValue, login.service.identifier, login.user] {
            message += Array(part.utf8) + [0]
        }
        let mac = HMAC<SHA256>.authenticationCode(for: message, using: tagKey)
        return mac.prefix(16).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
