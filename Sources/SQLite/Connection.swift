import CSQLite
import CSQLiteWAL

/// A SQLite failure: the result code and SQLite's own message.
public struct SQLiteError: Error, Equatable, CustomStringConvertible {
    public let code: Int32
    public let message: String
    public var description: String { "SQLite error \(code): \(message)" }
}

/// One SQLite connection. Single-threaded by design (the engine is), so it is opened with
/// SQLITE_OPEN_NOMUTEX and caches prepared statements by SQL text.
public final class Connection {
    public let handle: OpaquePointer
    private var cache: [String: Statement] = [:]
    /// Boxes kept alive for the functions and collations registered on this connection.
    var retained: [AnyObject] = []
    /// The box of `observeStatements`' observer, kept alive while it is installed.
    private var statementObserver: StatementObserver?
    /// The WAL's page count as commits report it, once checkpoints are deferred.
    var walPageCount: WALPageCount?
    /// Kept alive while `observeCommits` has it told of this connection's commits.
    var ownCommits: OwnCommits?

    public init(path: String = ":memory:") throws(SQLiteError) {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        // The default VFS with each commit's WAL frames written in one call, not two per
        // frame (Sources/CSQLiteWAL/wal_writes.c); the default itself if it is missing.
        let rc = sqlite3_open_v2(path, &db, flags, csqlite_wal_vfs_name())
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            if let db { sqlite3_close_v2(db) }
            throw SQLiteError(code: rc, message: message)
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
        // Predicates with thousands of terms must prepare in linear time (see the shim).
        _ = csqlite_disable_constant_factoring(db)
    }

    deinit {
        recent.removeAll()
        cache.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Finalizes cached statements and closes the connection now.
    public func close() {
        recent.removeAll()
        cache.removeAll()
    }

    /// Resets every statement of this connection still stepping (one whose rows were not
    /// all read): such a statement keeps its read transaction, and with it the state of the
    /// database it began with, open past a COMMIT. Returns how many there were.
    @discardableResult
    public func resetPendingStatements() -> Int {
        var count = 0
        var next = sqlite3_next_stmt(handle, nil)
        while let s = next {
            if sqlite3_stmt_busy(s) != 0 {
                sqlite3_reset(s)
                count += 1
            }
            next = sqlite3_next_stmt(handle, s)
        }
        return count
    }

    /// Whether SQLite opened the main database read-only (it falls back to that when the
    /// file cannot be opened for writing).
    public var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }

    public var lastError: SQLiteError {
        SQLiteError(code: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)))
    }

    /// Runs one or more statements that take no parameters.
    public func execute(_ sql: String) throws(SQLiteError) {
        var err: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &err)
        if rc != SQLITE_OK {
            let message = err.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(err)
            throw SQLiteError(code: rc, message: message)
        }
    }

    /// A prepared statement for `sql`, from the cache when it was prepared before. The
    /// statement comes back reset, with its bindings cleared.
    public func prepare(_ sql: String) throws(SQLiteError) -> Statement {
        let storage = Self.storage(of: sql)
        if let storage, let hit = recent.first(where: { $0.storage == storage && $0.sql.utf8.count == sql.utf8.count })
        {
            hit.statement.reset()
            return hit.statement
        }
        let statement: Statement
        if let cached = cache[sql] {
            cached.reset()
            statement = cached
        } else {
            statement = try Statement(connection: self, sql: sql)
            // Bounded, so a client sending ever new predicates cannot grow it without end; a
            // statement still in use stays alive with its user.
            if cache.count >= Self.cacheLimit {
                cache.removeAll(keepingCapacity: true)
                recent.removeAll(keepingCapacity: true)
            }
            cache[sql] = statement
        }
        if let storage {
            let entry = RecentStatement(storage: storage, sql: sql, statement: statement)
            if recent.count < Self.recentLimit { recent.append(entry) } else { recent[recentNext] = entry }
            recentNext = (recentNext + 1) % Self.recentLimit
        }
        return statement
    }

    /// The statements `prepare` handed out last, found by where their SQL's bytes are: a
    /// caller passing the same String each time (a literal, or SQL built once and kept) gets
    /// its statement without hashing the whole text (Benchmarks/README.md, "Measurements
    /// behind the code"). An entry keeps its String, so no other text can be at that address
    /// while it is here.
    private struct RecentStatement {
        let storage: UnsafeRawPointer
        let sql: String
        let statement: Statement
    }
    private var recent: [RecentStatement] = []
    private var recentNext = 0
    private static let recentLimit = 16

    /// Where a String's UTF-8 bytes are kept, for texts too long to be stored inline (a
    /// small string's bytes are copied for each look, so their address says nothing).
    private static func storage(of sql: String) -> UnsafeRawPointer? {
        guard sql.utf8.count > 15 else { return nil }
        return sql.utf8.withContiguousStorageIfAvailable { UnsafeRawPointer($0.baseAddress) } ?? nil
    }

    /// Prepared statements kept; the cache starts over when it is full.
    public static let cacheLimit = 512

    /// How many prepared statements the cache holds now.
    public var cachedStatementCount: Int { cache.count }

    /// A statement that is not cached (for one-off SQL such as schema changes).
    public func prepareUncached(_ sql: String) throws(SQLiteError) -> Statement {
        try Statement(connection: self, sql: sql)
    }

    /// Calls `observer` with the text of each statement as it starts running (nil stops it):
    /// how a test counts what one operation asks of the database.
    public func observeStatements(_ observer: ((String) -> Void)?) {
        guard let observer else {
            sqlite3_trace_v2(handle, 0, nil, nil)
            statementObserver = nil
            return
        }
        let box = StatementObserver(observer)
        statementObserver = box
        sqlite3_trace_v2(
            handle, UInt32(SQLITE_TRACE_STMT),
            { _, context, statement, _ in
                let box = Unmanaged<StatementObserver>.fromOpaque(context!).takeUnretainedValue()
                if let sql = sqlite3_sql(OpaquePointer(statement)) { box.body(String(cString: sql)) }
                return 0
            }, Unmanaged.passUnretained(box).toOpaque())
    }

    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }
    public var changes: Int { Int(sqlite3_changes(handle)) }
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Runs `body` inside BEGIN IMMEDIATE ... COMMIT; rolls back when it throws.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            // The body's error is the one to report; ROLLBACK fails only when SQLite already rolled back.
            try? execute("ROLLBACK")
            throw error
        }
    }
}

// MARK: - Functions and collations

/// A value passed to or returned from a registered SQL function.
public enum SQLValue: Equatable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

private final class StatementObserver {
    let body: (String) -> Void
    init(_ body: @escaping (String) -> Void) { self.body = body }
}

private final class FunctionBox {
    let body: ([SQLValue]) -> SQLValue
    init(_ body: @escaping ([SQLValue]) -> SQLValue) { self.body = body }
}

private final class CollationBox {
    let compare: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Int32
    init(_ compare: @escaping (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Int32) { self.compare = compare }
}

extension Connection {
    /// Registers a deterministic scalar SQL function. `arity` -1 accepts any count.
    public func createFunction(_ name: String, arity: Int32, _ body: @escaping ([SQLValue]) -> SQLValue)
        throws(SQLiteError)
    {
        let box = FunctionBox(body)
        retained.append(box)
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS
        let rc = sqlite3_create_function_v2(
            handle, name, arity, flags, Unmanaged.passUnretained(box).toOpaque(),
            { ctx, argc, argv in
                let box = Unmanaged<FunctionBox>.fromOpaque(sqlite3_user_data(ctx)).takeUnretainedValue()
                var args: [SQLValue] = []
                args.reserveCapacity(Int(argc))
                for i in 0..<Int(argc) { args.append(SQLValue(sqlite: argv![i]!)) }
                setResult(ctx, box.body(args))
            }, nil, nil, nil)
        guard rc == SQLITE_OK else { throw lastError }
    }

    /// Registers a collation over UTF-8 text. `compare` gets the two strings' bytes and
    /// returns <0, 0 or >0.
    public func createCollation(
        _ name: String,
        _ compare: @escaping (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Int32
    ) throws(SQLiteError) {
        let box = CollationBox(compare)
        retained.append(box)
        let rc = sqlite3_create_collation_v2(
            handle, name, SQLITE_UTF8, Unmanaged.passUnretained(box).toOpaque(),
            { ctx, n1, p1, n2, p2 in
                let box = Unmanaged<CollationBox>.fromOpaque(ctx!).takeUnretainedValue()
                return box.compare(
                    UnsafeRawBufferPointer(start: p1, count: Int(n1)),
                    UnsafeRawBufferPointer(start: p2, count: Int(n2)))
            }, nil)
        guard rc == SQLITE_OK else { throw lastError }
    }
}

extension SQLValue {
    init(sqlite value: OpaquePointer) {
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: self = .integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT: self = .real(sqlite3_value_double(value))
        case SQLITE_TEXT:
            let n = Int(sqlite3_value_bytes(value))
            let p = sqlite3_value_text(value)!
            self = .text(String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self))
        case SQLITE_BLOB:
            let n = Int(sqlite3_value_bytes(value))
            if n == 0 {
                self = .blob([])
            } else {
                let p = sqlite3_value_blob(value)!.assumingMemoryBound(to: UInt8.self)
                self = .blob(Array(UnsafeBufferPointer(start: p, count: n)))
            }
        default: self = .null
        }
    }
}
