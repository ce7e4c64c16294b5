import Synchronization

/// The origins where git stored an empty user name with an empty password: single sign-on (Kerberos,
/// a proxy that authenticates) where git's helpers are asked to remember that the host needs no
/// secret (git's own `store` and libsecret helpers keep such a credential; t0303 checks it). No
/// provider holds an empty password (the save entry point refuses one), so the helper remembers
/// these itself and gives them back on `get` when git names no user. Kept in this process's memory
/// only (the agent's, when one runs), as ``GitErasures`` is: origins, never a password.
final class GitEmptyLogins: Sendable {
    static let shared = GitEmptyLogins()
    /// The most origins remembered (the newest).
    static let maximum = 256

    private let origins = Mutex<[String]>([])

    /// Records that git stored an empty user name and password for `origin`.
    func stored(origin: String) {
        origins.withLock { origins in
            origins.removeAll { $0 == origin }
            origins.append(origin)
            if origins.count > Self.maximum { origins.removeFirst(origins.count - Self.maximum) }
        }
    }

    /// Forgets `origin` (git erased it, or stored a real login there since).
    func forget(origin: String) {
        origins.withLock { $0.removeAll { $0 == origin } }
    }

    /// Whether git stored an empty login for `origin` and has not erased or replaced it since.
    func contains(origin: String) -> Bool {
        origins.withLock { $0.contains(origin) }
    }
}
