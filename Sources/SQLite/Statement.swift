import CSQLite

/// A prepared statement. Bind by 1-based index, step, read columns by 0-based index.
public final class Statement {
    public let handle: OpaquePointer
    private unowned let connection: Connection

    init(connection: Connection, sql: String) throws(SQLiteError) {
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v3(connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &stmt, nil)
        guard rc == SQLITE_OK, let stmt else { throw connection.lastError }
        self.handle = stmt
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    public func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Resets for another run that binds every parameter again. Unlike `reset`, the bound
    /// values are kept: SQLite then copies the next text into the buffer the last one used
    /// instead of freeing it and allocating another (a malloc and a free per text value of a
    /// bulk insert).
    public func rewind() {
        sqlite3_reset(handle)
    }

    // MARK: Binding

    public func bind(_ value: SQLValue, at index: Int32) throws(SQLiteError) {
        let rc: Int32
        switch value {
        case .null: rc = sqlite3_bind_null(handle, index)
        case .integer(let v): rc = sqlite3_bind_int64(handle, index, v)
        case .real(let v): rc = sqlite3_bind_double(handle, index, v)
        case .text(let s):
            // Explicit byte length: text may hold NUL, which a -1 length would cut at. Read in
            // place where the string allows it (always, on Linux): `withUTF8` needs a copy.
            func bind(_ utf8: UnsafeBufferPointer<UInt8>) -> Int32 {
                utf8.withMemoryRebound(to: CChar.self) {
                    sqlite3_bind_text(handle, index, $0.baseAddress ?? emptyText, Int32($0.count), csqlite_transient())
                }
            }
            if let inPlace = s.utf8.withContiguousStorageIfAvailable(bind) {
                rc = inPlace
            } else {
                var s = s
                rc = s.withUTF8(bind)
            }
        case .blob(let b):
            rc = b.withUnsafeBytes {
                sqlite3_bind_blob(
                    handle, index, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32($0.count),
                    csqlite_transient())
            }
        }
        guard rc == SQLITE_OK else { throw connection.lastError }
    }

    /// Binds `values` to parameters 1...n.
    public func bind(_ values: [SQLValue]) throws(SQLiteError) {
        for (i, v) in values.enumerated() { try bind(v, at: Int32(i + 1)) }
    }

    // MARK: Stepping

    /// Advances to the next row: true when there is one, false when done.
    @discardableResult
    public func step() throws(SQLiteError) -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw connection.lastError
        }
    }

    /// Runs a statement that returns no rows with the values bound to it, then resets it,
    /// keeping them: a statement run per row binds every parameter again without an array
    /// of them, and each text goes into the buffer the last one used.
    public func runBound() throws(SQLiteError) {
        defer { sqlite3_reset(handle) }
        while try step() {}
    }

    /// Runs a statement that returns no rows, then resets it.
    public func run(_ values: [SQLValue] = []) throws(SQLiteError) {
        sqlite3_reset(handle)
        try bind(values)
        try runBound()
    }

    // MARK: Columns

    public var columnCount: Int32 { sqlite3_column_count(handle) }

    @inlinable
    public func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
    @inlinable
    public func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    @inlinable
    public func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }

    @inlinable
    public func text(_ column: Int32) -> String {
        guard let p = sqlite3_column_text(handle, column) else { return "" }
        let n = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
    }

    @inlinable
    public func blob(_ column: Int32) -> [UInt8] {
        let n = Int(sqlite3_column_bytes(handle, column))
        guard n > 0, let p = sqlite3_column_blob(handle, column) else { return [] }
        return Array(UnsafeBufferPointer(start: p.assumingMemoryBound(to: UInt8.self), count: n))
    }

    @inlinable
    public func value(_ column: Int32) -> SQLValue {
        // One column call, then the value's own cheap accessors (a bulk fetch reads
        // millions of columns; each column call enters and leaves the statement).
        guard let v = sqlite3_column_value(handle, column) else { return .null }
        switch sqlite3_value_type(v) {
        case SQLITE_INTEGER: return .integer(sqlite3_value_int64(v))
        case SQLITE_FLOAT: return .real(sqlite3_value_double(v))
        case SQLITE_TEXT: return .text(text(column))
        case SQLITE_BLOB: return .blob(blob(column))
        default: return .null
        }
    }
}

/// A non-null pointer for empty text: SQLite binds a NULL pointer as SQL NULL, not as ''.
nonisolated(unsafe) let emptyText: UnsafePointer<CChar> = UnsafeRawPointer(("" as StaticString).utf8Start)
    .assumingMemoryBound(to: CChar.self)
