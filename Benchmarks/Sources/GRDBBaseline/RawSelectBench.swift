import GRDBSQLite

/// The physical floor for performFetch: the C API stepping the ordered SELECT of ids and keys
/// into two arrays, on its own connection, nothing else.
struct RawSelectBench {
    let path: String
    let rows: Int

    enum Failure: Error { case sqlite(String) }

    func run(repeats: Int) throws -> [Double] {
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else {
            throw Failure.sqlite("open \(path)")
        }
        defer { sqlite3_close(db) }
        for pragma in Fixture.pragmas { sqlite3_exec(db, pragma, nil, nil, nil) }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, Fixture.orderedIdsAndKeys, -1, &statement, nil) == SQLITE_OK else {
            throw Failure.sqlite(String(cString: sqlite3_errmsg(db)))
        }
        defer { sqlite3_finalize(statement) }

        return try (0..<repeats).map { _ in
            var ids: [Int64] = []
            var keys: [Int64] = []
            let elapsed = Clock.measure {
                ids.reserveCapacity(rows)
                keys.reserveCapacity(rows)
                while sqlite3_step(statement) == SQLITE_ROW {
                    ids.append(sqlite3_column_int64(statement, 0))
                    keys.append(sqlite3_column_int64(statement, 1))
                }
                sqlite3_reset(statement)
            }
            guard ids.count == rows else { throw Failure.sqlite("read \(ids.count) rows, expected \(rows)") }
            return elapsed
        }
    }
}
