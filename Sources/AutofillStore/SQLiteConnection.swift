internal import CSQLite

/// A failure reported by SQLite.
struct SQLiteError: Error, CustomStringConvertible {
    /// SQLite's primary result code (`SQLITE_BUSY`, ...).
    let code: Int32
    /// SQLite's message; never contains bound values.
    let message: String

    var isBusy: Bool { code == SQLITE_BUSY || code == SQLITE_LOCKED }
    var description: String { "\(message) (SQLite \(code))" }
}

/// One SQLite connection: the only place autofill calls SQLite's C API.
///
/// Not thread-safe by itself; the store that owns it serialises access with a mutex.
final class SQLiteConnection: @unchecked Sendable {
    // @unchecked: a connection is only ever used inside its owning store's Mutex
    // (SQLiteIdentityStore.run), so no two threads touch it at once.
    private let handle: OpaquePointer
    private var statements: [String: Statement] = [:]

    /// Opens (creating if asked) the database at `path`.
    init(path: String, create: Bool, busyTimeout milliseconds: Int32) throws(SQLiteError) {
        var db: OpaquePointer?
        let flags = (create ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READWRITE) | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &db, flags, nil)
        guard status == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            if let db { sqlite3_close_v2(db) }
            throw SQLiteError(code: status, message: message)
        }
        handle = db
        sqlite3_busy_timeout(db, milliseconds)
        sqlite3_extended_result_codes(db, 0)
    }

    deinit {
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Runs SQL without results (schema, pragmas, BEGIN/COMMIT).
    func execute(_ sql: String) throws(SQLiteError) {
        let status = sqlite3_exec(handle, sql, nil, nil, nil)
        guard status == SQLITE_OK else { throw error(status) }
    }

    /// Runs one statement to its end, prepared once for the life of the connection (its rows, as
    /// a pragma's, unread).
    func run(_ sql: String) throws(SQLiteError) {
        let statement = try statement(sql)
        defer { statement.reset() }
        while try statement.step() {}
    }

    /// Whether the database file open here is no longer the one its path names: unlinked, renamed
    /// or replaced (`SQLITE_FCNTL_HAS_MOVED`; true when SQLite cannot tell).
    var hasMoved: Bool {
        var moved: Int32 = 0
        return sqlite3_file_control(handle, "main", SQLITE_FCNTL_HAS_MOVED, &moved) != SQLITE_OK || moved != 0
    }

    /// Whether no transaction is open and no statement is mid-result: what a connection kept between
    /// requests must be at the start of each, or it would read an old snapshot.
    var isIdle: Bool {
        guard sqlite3_get_autocommit(handle) != 0 else { return false }
        var statement = sqlite3_next_stmt(handle, nil)
        while let current = statement {
            if sqlite3_stmt_busy(current) != 0 { return false }
            statement = sqlite3_next_stmt(handle, current)
        }
        return true
    }

    /// A prepared statement for `sql`, cached for the life of the connection.
    func statement(_ sql: String) throws(SQLiteError) -> Statement {
        if let cached = statements[sql] {
            cached.reset()
            return cached
        }
        var raw: OpaquePointer?
        let status = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &raw, nil)
        guard status == SQLITE_OK, let raw else { throw error(status) }
        let statement = Statement(raw, connection: self)
        statements[sql] = statement
        return statement
    }

    /// Runs `body` in an immediate transaction: all of it, or (on any error) none of it.
    func transaction<R>(_ body: () throws -> R) throws -> R {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    fileprivate func error(_ status: Int32) -> SQLiteError {
        SQLiteError(code: status & 0xFF, message: String(cString: sqlite3_errmsg(handle)))
    }

    /// A prepared statement. Bind by 1-based index, then `step()`.
    final class Statement {
        private let raw: OpaquePointer
        private unowned let connection: SQLiteConnection

        fileprivate init(_ raw: OpaquePointer, connection: SQLiteConnection) {
            self.raw = raw
            self.connection = connection
        }

        deinit { sqlite3_finalize(raw) }

        func reset() {
            sqlite3_reset(raw)
            sqlite3_clear_bindings(raw)
        }

        func bind(_ index: Int32, _ value: String?) throws(SQLiteError) {
            let status: Int32
            if let value {
                status = sqlite3_bind_text(raw, index, value, -1, csqlite_transient())
            } else {
                status = sqlite3_bind_null(raw, index)
            }
            guard status == SQLITE_OK else { throw connection.error(status) }
        }

        func bind(_ index: Int32, _ value: Int64) throws(SQLiteError) {
            let status = sqlite3_bind_int64(raw, index, value)
            guard status == SQLITE_OK else { throw connection.error(status) }
        }

        func bind(_ index: Int32, _ value: [UInt8]) throws(SQLiteError) {
            let status = value.withUnsafeBytes { bytes in
                sqlite3_bind_blob(raw, index, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(bytes.count), csqlite_transient())
            }
            guard status == SQLITE_OK else { throw connection.error(status) }
        }

        /// Advances; true while a row is available.
        @discardableResult
        func step() throws(SQLiteError) -> Bool {
            let status = sqlite3_step(raw)
            switch status {
            case SQLITE_ROW: return true
            case SQLITE_DONE: return false
            default:
                let failure = connection.error(status)
                sqlite3_reset(raw)
                throw failure
            }
        }

        func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(raw, column) }

        func string(_ column: Int32) -> String? {
            guard sqlite3_column_type(raw, column) != SQLITE_NULL, let text = sqlite3_column_text(raw, column) else { return nil }
            let count = Int(sqlite3_column_bytes(raw, column))
            return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
        }

        func bytes(_ column: Int32) -> [UInt8] {
            let count = Int(sqlite3_column_bytes(raw, column))
            guard count > 0, let blob = sqlite3_column_blob(raw, column) else { return [] }
            return Array(UnsafeRawBufferPointer(start: blob, count: count))
        }
    }
}
