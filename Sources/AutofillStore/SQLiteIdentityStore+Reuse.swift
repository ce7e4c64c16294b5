internal import AutofillSystem
internal import Synchronization

/// The agent's stores, kept open between requests.
///
/// A fill reads each enabled provider's store (``SuggestionEngine``). Opening it for every request
/// (SQLite's open, reading the schema, the journal and version pragmas, and the statements prepared
/// afresh) was about a tenth of the agent's CPU for a fill (docs/PERFORMANCE.md, Run R). Once the
/// agent calls ``reuseOpenedStores()``, ``openIfExists(providerID:in:)`` gives back the store it opened
/// before for the same path, while that path still names the very file the store's connection has
/// open: the same device and inode as when it was opened, and SQLite's own check
/// (`SQLITE_FCNTL_HAS_MOVED`: the file was not unlinked, renamed or replaced). The open connection
/// keeps its inode from being reused. What a request reads is as fresh as before: every read is a
/// transaction of its own, which sees what any other process committed, and a store is reused only
/// with no transaction open and no statement mid-result (else it is opened afresh). Each reuse runs
/// the checks an open runs (the journal mode, the schema version, the schema itself when missing),
/// from statements prepared once. Other processes (the CLI, a companion) open their stores as before.
extension SQLiteIdentityStore {
    private struct Opened: Sendable {
        let store: SQLiteIdentityStore
        let device: UInt64
        let inode: UInt64
    }

    private static let reuses = Atomic<Bool>(false)
    private static let opened = Mutex<[String: Opened]>([:])
    /// The most stores kept; beyond it the agent starts afresh (a request naming many data folders).
    static let maximumOpened = 64

    /// Makes ``openIfExists(providerID:in:)`` keep the stores it opens for later calls in this process
    /// (the agent, at its start).
    public static func reuseOpenedStores() {
        reuses.store(true, ordering: .relaxed)
    }

    /// The store kept for `path`, when reuse is on and `path` still names the file it has open and
    /// its checks pass; nil otherwise (open it afresh).
    static func reused(providerID: String, path: String) -> SQLiteIdentityStore? {
        guard reuses.load(ordering: .relaxed), let kept = opened.withLock({ $0[path] }), kept.store.providerID == providerID,
              let now = StatStamp(path: path), now.device == kept.device, now.inode == kept.inode
        else { return nil }
        let checked: Bool? = try? kept.store.run { connection -> Bool in
            guard !connection.hasMoved, connection.isIdle else { return false }
            try prepareSchema(connection)
            return true
        }
        return checked == true ? kept.store : nil
    }

    /// Keeps `store`, just opened, for later calls (when reuse is on).
    static func keep(_ store: SQLiteIdentityStore) {
        guard reuses.load(ordering: .relaxed) else { return }
        // The file the connection has open, by the path's word, with SQLite's agreeing it is that one.
        let moved: Bool? = try? store.run { connection -> Bool in connection.hasMoved }
        guard let stamp = StatStamp(path: store.path), moved == false else { return }
        opened.withLock { opened in
            if opened.count >= maximumOpened && opened[store.path] == nil { opened.removeAll() }
            opened[store.path] = Opened(store: store, device: stamp.device, inode: stamp.inode)
        }
    }
}
