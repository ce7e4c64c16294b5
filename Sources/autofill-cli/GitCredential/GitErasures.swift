import Synchronization

/// The logins git erased lately (`erase`: the server rejected the password), so that `get` does not
/// give git the rejected password again until git stores a new one for that user (`store`). git
/// expects an erased credential to be gone; autofill cannot remove it from a provider (the provider
/// gets the unused-password report, which only demotes it), so the helper forgets it for git.
/// Kept in this process's memory only (the agent's, when one runs), as ``GitDeliveries`` is: user
/// names and origins (`scheme://host[:port]`), never a password.
final class GitErasures: Sendable {
    static let shared = GitErasures()
    /// The most origins remembered (the newest).
    static let maximum = 256

    /// What git erased at one origin: every user (git named none) but those stored since, or these users.
    struct Entry {
        let origin: String
        var everyone = false
        var users: Set<String> = []
        var storedSince: Set<String> = []

        func covers(_ user: String) -> Bool { everyone ? !storedSince.contains(user) : users.contains(user) }
    }

    private let entries = Mutex<[Entry]>([])

    /// Records that git erased `user`'s login at `origin` (nil: every login there).
    func erase(origin: String, user: String?) {
        entries.withLock { entries in
            var entry = entries.firstIndex { $0.origin == origin }.map { entries.remove(at: $0) } ?? Entry(origin: origin)
            if let user {
                entry.users.insert(user)
                entry.storedSince.remove(user)
            } else {
                entry = Entry(origin: origin, everyone: true)
            }
            entries.append(entry)
            if entries.count > Self.maximum { entries.removeFirst(entries.count - Self.maximum) }
        }
    }

    /// Records that git stored a password for `user` at `origin`: that login is given again.
    func stored(origin: String, user: String) {
        entries.withLock { entries in
            guard let index = entries.firstIndex(where: { $0.origin == origin }) else { return }
            entries[index].users.remove(user)
            if entries[index].everyone {
                entries[index].storedSince.insert(user)
            } else if entries[index].users.isEmpty {
                entries.remove(at: index)
            }
        }
    }

    /// Whether git erased `user`'s login at `origin` and has not stored one since.
    func isErased(origin: String, user: String) -> Bool {
        entries.withLock { entries in entries.first { $0.origin == origin }?.covers(user) ?? false }
    }
}

extension GitCredentialDescription {
    /// `protocol://host[:port]`, lower-cased: where an erase applies (whatever the path).
    var origin: String { "\((protocolName ?? "").lowercased())://\((host ?? "").lowercased())" }
}
