import GRDBSQLite

/// The physical floor under an end-to-end save: one prepared single-row UPDATE of the indexed
/// sort key in autocommit mode (WAL, synchronous=NORMAL), on its own connection.
struct RawCommitBench {
    let path: String
    let rows: Int

    func run(iterations: Int) throws -> [Double] {
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else {
            throw RawSelectBench.Failure.sqlite("open \(path)")
        }
        defer { sqlite3_close(db) }
        for pragma in Fixture.pragmas { sqlite3_exec(db, pragma, nil, nil, nil) }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, "UPDATE msg SET ts = ? WHERE id = ?", -1, &statement, nil) == SQLITE_OK else {
            throw RawSelectBench.Failure.sqlite(String(cString: sqlite3_errmsg(db)))
        }
        defer { sqlite3_finalize(statement) }

        var changes = Workload.Changes(rowCount: rows)
        return try (0..<iterations).map { _ in
            let change = changes.next()
            var code: Int32 = 0
            let elapsed = Clock.measure {
                sqlite3_bind_int64(statement, 1, change.ts)
                sqlite3_bind_int64(statement, 2, change.id)
                code = sqlite3_step(statement)
                sqlite3_reset(statement)
            }
            guard code == SQLITE_DONE else { throw RawSelectBench.Failure.sqlite("update: \(code)") }
            return elapsed
        }
    }
}
