public import AutofillCore
internal import AutofillMatching
internal import AutofillSystem
internal import Synchronization

/// One provider's persistent identity store: a SQLite database of identities, never secrets.
///
/// Apple's semantics: saving an existing identity replaces it; `replace` deletes all, then saves;
/// every write is one transaction (all or nothing, also across a `kill -9`); writes are refused
/// while the provider is disabled; disabling wipes the store and turns incremental updates off
/// until the provider writes its full list again. Several processes may open the same store (the
/// host reads while a companion program writes): SQLite's WAL mode gives every read a consistent
/// snapshot, and a writer waits up to three seconds for another before answering `storeBusy`.
public final class SQLiteIdentityStore: CredentialIdentityStore {
    /// The provider whose store this is.
    public let providerID: String
    /// The database file.
    public let path: String
    private let connection: Mutex<SQLiteConnection>

    static let schemaVersion = 1
    static let busyTimeoutMilliseconds: Int32 = 3000

    /// Opens the store of `providerID` in `directory`, creating the folder (0700) and file (0600) if needed.
    public static func open(providerID: String, in directory: IdentityStoreDirectory) throws(IdentityStoreError)
        -> SQLiteIdentityStore
    {
        try directory.create()
        return try SQLiteIdentityStore(providerID: providerID, path: directory.path(for: providerID), create: true)
    }

    /// Opens the store of `providerID` if it exists; nil when the provider never had one.
    public static func openIfExists(providerID: String, in directory: IdentityStoreDirectory) throws(IdentityStoreError)
        -> SQLiteIdentityStore?
    {
        let path = directory.path(for: providerID)
        guard Paths.exists(path) else { return nil }
        if let store = reused(providerID: providerID, path: path) { return store }
        let store = try SQLiteIdentityStore(providerID: providerID, path: path, create: false)
        keep(store)
        return store
    }

    private init(providerID: String, path: String, create: Bool) throws(IdentityStoreError) {
        self.providerID = providerID
        self.path = path
        if create {
            // Create the file ourselves so it is 0600 from the start; SQLite gives -wal/-shm the same mode.
            // Only when it does not exist (O_EXCL): closing a descriptor of a database file drops every
            // POSIX lock this process holds on it, and a process that keeps stores open (the agent) would
            // lose its connections' locks to a second open of the same store.
            do {
                Descriptors.closeQuietly(try Descriptors.open(path, [.readWrite, .create, .exclusive], mode: 0o600))
            } catch where !error.alreadyExists {
                throw IdentityStoreError(.internalError, "cannot create the identity store \(path): \(error.reason)")
            } catch {}
        }
        do {
            let connection = try SQLiteConnection(path: path, create: false, busyTimeout: Self.busyTimeoutMilliseconds)
            try Self.prepareSchema(connection)
            self.connection = Mutex(connection)
        } catch {
            throw Self.storeError(error, providerID: providerID, path: path)
        }
    }

    static func prepareSchema(_ connection: SQLiteConnection) throws(SQLiteError) {
        // Prepared once per connection: a reused store runs these at every request (+Reuse).
        try connection.run("PRAGMA journal_mode = WAL")
        try connection.run("PRAGMA synchronous = NORMAL")
        try connection.run("PRAGMA foreign_keys = OFF")
        let version = try connection.statement("PRAGMA user_version")
        _ = try version.step()
        let current = version.int64(0)
        version.reset()
        guard current < Int64(schemaVersion) else {
            guard current == Int64(schemaVersion) else {
                throw SQLiteError(code: 0, message: "written by a newer autofill (schema \(current), this one knows \(schemaVersion))")
            }
            return
        }
        try connection.execute("""
            BEGIN IMMEDIATE;
            CREATE TABLE IF NOT EXISTS identity (
                id INTEGER PRIMARY KEY,
                key BLOB NOT NULL UNIQUE,
                kind INTEGER NOT NULL,
                service_type TEXT NOT NULL,
                service TEXT NOT NULL,
                user TEXT NOT NULL,
                record_identifier TEXT,
                credential_id BLOB,
                user_handle BLOB,
                rank INTEGER NOT NULL,
                lookup_key TEXT
            );
            CREATE INDEX IF NOT EXISTS identity_by_lookup_key ON identity (lookup_key, kind);
            CREATE TABLE IF NOT EXISTS store_state (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                enabled INTEGER NOT NULL,
                supports_incremental_updates INTEGER NOT NULL
            );
            INSERT OR IGNORE INTO store_state (id, enabled, supports_incremental_updates) VALUES (1, 0, 0);
            PRAGMA user_version = \(schemaVersion);
            COMMIT;
            """)
    }

    // MARK: CredentialIdentityStore

    public func state() throws(IdentityStoreError) -> IdentityStoreState {
        try run { connection in try Self.readState(connection) }
    }

    public func save(_ identities: [CredentialIdentity]) throws(IdentityStoreError) {
        let rows = try IdentityRow.validated(identities)
        try write { connection in try Self.upsert(rows, connection) }
    }

    public func remove(_ identities: [CredentialIdentity]) throws(IdentityStoreError) {
        let keys = identities.map { IdentityKey($0).bytes }
        try write { connection in
            let delete = try connection.statement("DELETE FROM identity WHERE key = ?1")
            for key in keys {
                delete.reset()
                try delete.bind(1, key)
                try delete.step()
            }
        }
    }

    public func replace(with identities: [CredentialIdentity]) throws(IdentityStoreError) {
        let rows = try IdentityRow.validated(identities)
        try write { connection in
            try connection.execute("DELETE FROM identity")
            try Self.upsert(rows, connection)
            try connection.execute("UPDATE store_state SET supports_incremental_updates = 1")
        }
    }

    public func removeAll() throws(IdentityStoreError) {
        try write { connection in try connection.execute("DELETE FROM identity") }
    }

    // MARK: The host's side

    /// Enables the store (a full write is then expected), or disables it and wipes it.
    public func setEnabled(_ enabled: Bool) throws(IdentityStoreError) {
        try run { connection in
            try connection.transaction {
                let current = try Self.readState(connection)
                guard current.isEnabled != enabled else { return }
                if !enabled { try connection.execute("DELETE FROM identity") }
                try connection.execute("UPDATE store_state SET enabled = \(enabled ? 1 : 0), supports_incremental_updates = 0")
            }
        }
    }

    /// Wipes the store but keeps it enabled (after `credentialIdentityNotFound`, as iOS does); the
    /// provider must write its full list again.
    public func wipe() throws(IdentityStoreError) {
        try run { connection in
            try connection.transaction {
                try connection.execute("DELETE FROM identity")
                try connection.execute("UPDATE store_state SET supports_incremental_updates = 0")
            }
        }
    }

    /// The identities indexed under `lookupKey` (see `IdentityIndex`), of the given kinds.
    public func identities(lookupKey: String, kinds: Set<CredentialIdentity.Kind>) throws(IdentityStoreError) -> [CredentialIdentity] {
        try run { connection in
            // The index (lookup_key, kind) yields rows in kind, then insertion order: no sort needed.
            let select = try connection.statement(
                "SELECT \(IdentityRow.columns) FROM identity WHERE lookup_key = ?1 AND kind IN (?2, ?3, ?4)")
            try select.bind(1, lookupKey)
            let codes = CredentialIdentity.Kind.allCases.map { kinds.contains($0) ? IdentityRow.code(of: $0) : 0 }
            for (index, code) in codes.enumerated() { try select.bind(Int32(index + 2), code) }
            return try IdentityRow.read(select, kinds: kinds)
        }
    }

    /// Every identity of the given kinds (all kinds when nil), in the order first saved.
    public func allIdentities(kinds: Set<CredentialIdentity.Kind>? = nil) throws(IdentityStoreError) -> [CredentialIdentity] {
        try run { connection in
            let select = try connection.statement("SELECT \(IdentityRow.columns) FROM identity ORDER BY id")
            return try IdentityRow.read(select, kinds: kinds ?? Set(CredentialIdentity.Kind.allCases))
        }
    }

    /// How many identities the store holds.
    public func count() throws(IdentityStoreError) -> Int {
        try run { connection in
            let select = try connection.statement("SELECT count(*) FROM identity")
            defer { select.reset() }
            _ = try select.step()
            return Int(select.int64(0))
        }
    }

    // MARK: Plumbing

    private static func readState(_ connection: SQLiteConnection) throws(SQLiteError) -> IdentityStoreState {
        let select = try connection.statement("SELECT enabled, supports_incremental_updates FROM store_state WHERE id = 1")
        defer { select.reset() }  // a statement left mid-result would hold a read transaction open
        guard try select.step() else { return IdentityStoreState(isEnabled: false, supportsIncrementalUpdates: false) }
        return IdentityStoreState(isEnabled: select.int64(0) != 0, supportsIncrementalUpdates: select.int64(1) != 0)
    }

    private static func upsert(_ rows: [IdentityRow], _ connection: SQLiteConnection) throws(SQLiteError) {
        let insert = try connection.statement("""
            INSERT INTO identity (key, kind, service_type, service, user, record_identifier, credential_id, user_handle, rank, lookup_key)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
            ON CONFLICT (key) DO UPDATE SET rank = excluded.rank, user_handle = excluded.user_handle,
                user = excluded.user, record_identifier = excluded.record_identifier, lookup_key = excluded.lookup_key
            """)
        for row in rows {
            insert.reset()
            try row.bind(to: insert)
            try insert.step()
        }
    }

    /// A write: one transaction, refused while the store is disabled.
    private func write(_ body: (SQLiteConnection) throws -> Void) throws(IdentityStoreError) {
        let providerID = providerID
        try run { connection in
            try connection.transaction {
                guard try Self.readState(connection).isEnabled else {
                    throw IdentityStoreError(.storeDisabled, "the identity store of \(providerID) is disabled: enable the provider first (`autofill providers enable \(providerID)`)")
                }
                try body(connection)
            }
        }
    }

    func run<R>(_ body: (SQLiteConnection) throws -> R) throws(IdentityStoreError) -> R {
        do {
            return try connection.withLock { connection in try body(connection) }
        } catch {
            throw Self.storeError(error, providerID: providerID, path: path)
        }
    }

    private static func storeError(_ error: any Error, providerID: String, path: String) -> IdentityStoreError {
        if let error = error as? IdentityStoreError { return error }
        if let error = error as? SQLiteError {
            if error.isBusy {
                return IdentityStoreError(.storeBusy, "the identity store of \(providerID) is busy (another program is writing it); try again")
            }
            return IdentityStoreError(.internalError, "the identity store of \(providerID) at \(path) failed: \(error)")
        }
        return IdentityStoreError(.internalError, "the identity store of \(providerID) failed: \(error)")
    }
}
