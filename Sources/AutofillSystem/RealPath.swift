internal import Glibc
internal import Synchronization

/// `realpath(3)`, each path resolved at most once per request, and from its resolved folder.
///
/// The permission and sandbox checks of one fill resolve the same few paths again and again (the
/// home, the state folder, the plugin folders: ≈ 36 resolutions and 220 `readlink`s per fill before
/// this). Within one request (``memo`` set: the agent sets it around each command it runs) a path
/// resolved is remembered, and a path whose folder was resolved is resolved from it: one `lstat` of
/// its last component (a link there is resolved in full), where `realpath` reads every component
/// again. The next request starts with nothing remembered, so a link or folder changed between two
/// requests is seen by the second, as without the agent.
///
/// Why not across requests, kept while stat stamps hold still, as ``StampedCache`` keeps parsed
/// files: what a path resolves to depends on every folder along it (a link is replaced by a rename
/// in its folder), so proving a remembered result still right takes one `stat` per component, which
/// is what `realpath` costs itself (one `readlink` per component).
///
/// Only resolutions that succeed are remembered: a request that creates a folder it resolved before
/// resolves it again.
///
/// The permission checks' `stat`s of folders are remembered the same way, for one request
/// (``status(of:)``).
package enum RealPath {
    /// What one request resolved.
    package final class Memo: Sendable {
        private let resolved = Mutex<[String: String]>([:])
        private let folders = Mutex<[String: FileStatus]>([:])

        package init() {}

        fileprivate func lookup(_ path: String) -> String? {
            resolved.withLock { $0[path] }
        }

        fileprivate func remember(_ path: String, _ real: String) {
            resolved.withLock { $0[path] = real }
        }

        fileprivate func folder(_ path: String) -> FileStatus? {
            folders.withLock { $0[path] }
        }

        fileprivate func remember(folder path: String, _ status: FileStatus) {
            folders.withLock { $0[path] = status }
        }
    }

    /// The current request's memo; nil: every call resolves.
    @TaskLocal package static var memo: Memo?

    /// `path` with every symbolic link resolved (`realpath`), or nil when it cannot be.
    package static func resolve(_ path: String) -> String? {
        guard let memo = Self.memo else { return realPath(path) }
        return resolve(path, memo: memo)
    }

    /// `path` with every symbolic link resolved (`realpath`), never remembered, or nil when it cannot
    /// be: for a client, which serves no request (reading ``memo``, a task-local, costs a small
    /// client's start the concurrency runtime's metadata, docs/PERFORMANCE.md, Run R).
    package static func resolveUnremembered(_ path: String) -> String? {
        realPath(path)
    }

    /// `path` resolved with `memo`: remembered, or from its resolved folder when `path` is absolute
    /// and standardized (``LexicalPath/isStandardized(_:)``), else by `realpath`.
    ///
    /// The same answer as `realpath`: with the folder resolved to `real`, `path` is `real/name` unless
    /// `name` is a link there (then `realpath` of `real/name`), and there is none when `real/name`
    /// does not exist or `real` is not a folder (`lstat` fails as `realpath` would).
    private static func resolve(_ path: String, memo: Memo) -> String? {
        if let known = memo.lookup(path) { return known }
        let real: String
        if path != "/", LexicalPath.isStandardized(path) {
            guard let folder = resolve(LexicalPath.folder(of: path), memo: memo) else { return nil }
            let candidate = (folder == "/" ? "" : folder) + "/" + LexicalPath.name(of: path)
            guard let info = try? FileStatus(path: candidate, followingLinks: false) else { return nil }
            if info.kind == .symbolicLink {
                guard let linked = realPath(candidate) else { return nil }
                real = linked
            } else {
                real = candidate
            }
        } else {
            guard let resolved = realPath(path) else { return nil }
            real = resolved
        }
        memo.remember(path, real)
        return real
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// `stat(2)` of `path` (links followed), or nil when it fails. Within a request (``memo`` set)
    /// the status of a folder is remembered: the permission checks look at the same folders above
    /// every file they check (the home, `/tmp`, `/`) once per file. A file's is never remembered (the
    /// host rewrites its own files within a request), nor a failure.
    package static func status(of path: String) -> FileStatus? {
        let memo = Self.memo
        if let known = memo?.folder(path) { return known }
        guard let status = try? FileStatus(path: path) else { return nil }
        if status.kind == .directory { memo?.remember(folder: path, status) }
        return status
    }
}
