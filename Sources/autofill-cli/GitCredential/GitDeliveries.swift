import Crypto
import FoundationEssentials
import Synchronization

/// The passwords `get` gave git lately, so that git's `store` of the same password (git stores every
/// password that worked) is recognised and not saved again. Kept in this process's memory only
/// (the agent's, when one runs; a process of its own remembers nothing and saves as asked): each
/// entry is an HMAC-SHA256 tag of site, user and password under a key made when the process
/// started, so no password, and no hash an attacker could test guesses against, is kept.
final class GitDeliveries: Sendable {
    static let shared = GitDeliveries()
    /// How long a delivery is remembered (a long clone takes minutes).
    static let window: Duration = .seconds(3600)
    /// The most deliveries remembered (the newest).
    static let maximum = 64

    private let key = SymmetricKey(size: .bits256)
    private let entries = Mutex<[(tag: Data, time: ContinuousClock.Instant)]>([])

    /// Records that `get` gave git `password` for `user` at `site`.
    func record(site: String, user: String, password: String) {
        let tag = tag(site, user, password), now = ContinuousClock.now
        entries.withLock { entries in
            entries.removeAll { now - $0.time > Self.window || $0.tag == tag }
            entries.append((tag, now))
            if entries.count > Self.maximum { entries.removeFirst(entries.count - Self.maximum) }
        }
    }

    /// Whether `get` gave git this very password for `user` at `site` within ``window``.
    func gave(site: String, user: String, password: String) -> Bool {
        let tag = tag(site, user, password), now = ContinuousClock.now
        return entries.withLock { entries in entries.contains { now - $0.time <= Self.window && $0.tag == tag } }
    }

    private func tag(_ site: String, _ user: String, _ password: String) -> Data {
        var message = Data()
        for part in [site, user, password] {
            withUnsafeBytes(of: UInt32(part.utf8.count).bigEndian) { message.append(contentsOf: $0) }
            message.append(contentsOf: Array(part.utf8))
        }
        defer { message.resetBytes(in: 0..<message.count) }
        return Data(HMAC<SHA256>.authenticationCode(for: message, using: key))
    }
}
