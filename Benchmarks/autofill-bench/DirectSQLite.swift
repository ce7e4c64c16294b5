internal import Glibc

/// SQLite's C API reached with `dlopen`, for the peers that write "bare" SQL: the benchmark target
/// does not depend on the CSQLite module, and the library is the one autofill itself links
/// (already loaded in this process), so both sides run the same SQLite.
final class DirectSQLite {
    private typealias Open = @convention(c) (UnsafePointer<CChar>?, UnsafeMutablePointer<OpaquePointer?>?, Int32, UnsafePointer<CChar>?) -> Int32
    private typealias Exec = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, UnsafeRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Int32
    private typealias Prepare = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, Int32, UnsafeMutablePointer<OpaquePointer?>?, UnsafeMutableRawPointer?) -> Int32
    private typealias BindText = @convention(c) (OpaquePointer?, Int32, UnsafePointer<CChar>?, Int32, Int) -> Int32
    private typealias BindBlob = @convention(c) (OpaquePointer?, Int32, UnsafeRawPointer?, Int32, Int) -> Int32
    private typealias BindInt64 = @convention(c) (OpaquePointer?, Int32, Int64) -> Int32
    private typealias BindNull = @convention(c) (OpaquePointer?, Int32) -> Int32
    private typealias StatementCall = @convention(c) (OpaquePointer?) -> Int32
    private typealias ColumnText = @convention(c) (OpaquePointer?, Int32) -> UnsafePointer<UInt8>?
    private typealias ErrorMessage = @convention(c) (OpaquePointer?) -> UnsafePointer<CChar>?
    private typealias Version = @convention(c) () -> UnsafePointer<CChar>?

    private static let ok: Int32 = 0, row: Int32 = 100, done: Int32 = 101
    private static let openReadWrite: Int32 = 0x02, openCreate: Int32 = 0x04
    private static let transient = -1  // SQLITE_TRANSIENT

    private let library: UnsafeMutableRawPointer
    private let openV2: Open
    private let exec: Exec
    private let prepare: Prepare
    private let bindText: BindText
    private let bindBlob: BindBlob
    private let bindInt64: BindInt64
    private let bindNull: BindNull
    private let step: StatementCall
    private let reset: StatementCall
    private let finalize: StatementCall
    private let closeV2: StatementCall
    private let columnText: ColumnText
    private let errorMessage: ErrorMessage
    /// The library's version (`sqlite3_libversion`).
    let version: String

    init() throws {
        guard let library = dlopen("libsqlite3.so.0", RTLD_NOW) ?? dlopen("libsqlite3.so", RTLD_NOW) else {
            throw BenchmarkError("cannot dlopen libsqlite3")
        }
        self.library = library
        func symbol<T>(_ name: String, _: T.Type) throws -> T {
            guard let pointer = dlsym(library, name) else { throw BenchmarkError("libsqlite3 has no \(name)") }
            return unsafeBitCast(pointer, to: T.self)
        }
        openV2 = try symbol("sqlite3_open_v2", Open.self)
        exec = try symbol("sqlite3_exec", Exec.self)
        prepare = try symbol("sqlite3_prepare_v2", Prepare.self)
        bindText = try symbol("sqlite3_bind_text", BindText.self)
        bindBlob = try symbol("sqlite3_bind_blob", BindBlob.self)
        bindInt64 = try symbol("sqlite3_bind_int64", BindInt64.self)
        bindNull = try symbol("sqlite3_bind_null", BindNull.self)
        step = try symbol("sqlite3_step", StatementCall.self)
        reset = try symbol("sqlite3_reset", StatementCall.self)
        finalize = try symbol("sqlite3_finalize", StatementCall.self)
        closeV2 = try symbol("sqlite3_close_v2", StatementCall.self)
        columnText = try symbol("sqlite3_column_text", ColumnText.self)
        errorMessage = try symbol("sqlite3_errmsg", ErrorMessage.self)
        let libversion = try symbol("sqlite3_libversion", Version.self)
        version = libversion().map { String(cString: $0) } ?? "?"
    }

    deinit { dlclose(library) }

    /// An open database.
    final class Database {
        fileprivate let api: DirectSQLite
        fileprivate let handle: OpaquePointer

        fileprivate init(api: DirectSQLite, handle: OpaquePointer) {
            self.api = api
            self.handle = handle
        }

        deinit { _ = api.closeV2(handle) }

        func fail(_ what: String) -> BenchmarkError {
            BenchmarkError("\(what): \(api.errorMessage(handle).map { String(cString: $0) } ?? "?")")
        }

        func execute(_ sql: String) throws {
            guard api.exec(handle, sql, nil, nil, nil) == DirectSQLite.ok else { throw fail("SQL failed (\(sql.prefix(60)))") }
        }

        func prepare(_ sql: String) throws -> Statement {
            var raw: OpaquePointer?
            guard api.prepare(handle, sql, -1, &raw, nil) == DirectSQLite.ok, let raw else { throw fail("cannot prepare \(sql.prefix(60))") }
            return Statement(database: self, raw: raw)
        }

        /// The first column of every row `sql` yields, as text.
        func strings(_ sql: String) throws -> [String] {
            let statement = try prepare(sql)
            var result: [String] = []
            while try statement.step() { result.append(statement.text(0) ?? "") }
            return result
        }
    }

    /// A prepared statement; bind by 1-based index.
    final class Statement {
        private let database: Database
        private let raw: OpaquePointer

        fileprivate init(database: Database, raw: OpaquePointer) {
            self.database = database
            self.raw = raw
        }

        deinit { _ = database.api.finalize(raw) }

        func reset() { _ = database.api.reset(raw) }

        func bind(_ index: Int32, _ value: String?) {
            guard let value else { _ = database.api.bindNull(raw, index); return }
            _ = database.api.bindText(raw, index, value, -1, DirectSQLite.transient)
        }

        func bind(_ index: Int32, _ value: Int64) { _ = database.api.bindInt64(raw, index, value) }

        func bind(_ index: Int32, _ value: [UInt8]?) {
            guard let value else { _ = database.api.bindNull(raw, index); return }
            _ = value.withUnsafeBytes { bytes in
                database.api.bindBlob(raw, index, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(bytes.count), DirectSQLite.transient)
            }
        }

        /// Advances; true while a row is available.
        @discardableResult
        func step() throws -> Bool {
            switch database.api.step(raw) {
            case DirectSQLite.row: return true
            case DirectSQLite.done: return false
            default: throw database.fail("step failed")
            }
        }

        func text(_ column: Int32) -> String? {
            database.api.columnText(raw, column).map { String(cString: $0) }
        }
    }

    /// Opens (creating) the database at `path`.
    func open(_ path: String) throws -> Database {
        var handle: OpaquePointer?
        guard openV2(path, &handle, Self.openReadWrite | Self.openCreate, nil) == Self.ok, let handle else {
            throw BenchmarkError("cannot open \(path) with SQLite")
        }
        return Database(api: self, handle: handle)
    }
}
