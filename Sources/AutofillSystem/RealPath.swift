internal import Glibc
internal import Synchronization

/// `realpath(3)`, each path resolved at most once per request.
///
/// The permission and sandbox checks of one fill resolve the same few paths again and again (the
/// home, the state folder, the plugin folders: ≈ 36 resolutions and 220 `readlink`s per fill before
/// this). Within one request (``memo`` set: the agent sets it around each command it runs) a path
/// resolved is remembered; the next request starts with nothing remembered, so a link or folder
/// changed between two requests is seen by the second, as without the agent.
///
/// Why not across requests, kept while stat stamps hold still, as ``StampedCache`` keeps parsed
/// files: what a path resolves to depends on every folder along it (a link is replaced by a rename
/// in its folder), so proving a remembered result still right takes one `stat` per component, which
/// is what `realpath` costs itself (one `readlink` per component).
///
/// Only resolutions that succeed are remembered: a request that creates a folder it resolved before
/// resolves it again.
package enum RealPath {
    /// What one request resolved.
    package final class Memo: Sendable {
        private let resolved = Mutex<[String: String]>([:])

        package init() {}

        fileprivate func lookup(_ path: String) -> String? {
            resolved.withLock { $0[path] }
        }

        fileprivate func remember(_ path: String, _ real: String) {
            resolved.withLock { $0[path] = real }
        }
    }

    /// The current request's memo; nil: every call resolves.
    @TaskLocal package static var memo: Memo?

    /// `path` with every symbolic link resolved (`realpath`), or nil when it cannot be.
    package static func resolve(_ path: String) -> String? {
        let memo = Self.memo
        if let known = memo?.lookup(path) { return known }
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        let real = String(cString: resolved)
        memo?.remember(path, real)
        return real
    }
}
