import Postgres
import Testing

@Suite(.serialized) struct PGConnectionTests {
    @Test func execWithParametersRoundTripsTextAndNull() throws {
        let db = try PGTestDatabase.connect()
        let result = try db.exec(
            "SELECT $1::int + 1 AS n, $2::text AS t, $3::text AS missing", [.int(41), "héllo", nil])
        #expect(result.columns == ["n", "t", "missing"])
        #expect(result.types == [23, 25, 25]) // int4, text, text
        #expect(result.rows == [["42", "héllo", nil]])
    }

    @Test func rowsReadInPlaceAgreeWithTheMaterializedResult() throws {
        let db = try PGTestDatabase.connect()
        let sql = """
            SELECT n::bigint, CASE WHEN n % 3 = 0 THEN NULL ELSE 'v' || n END, (n - 5) * 1000000000000
            FROM generate_series(1, 40) AS n WHERE n > $1 ORDER BY n
            """
        let materialized = try db.execPrepared(sql, [.int(4)])
        var read: [[String?]] = []
        var integers: [Int64?] = []
        try db.execPrepared(sql, [.int(4)]) { row in
            read.append([row.text(0), row.text(1), row.text(2)])
            integers.append(row.int64(2))
            #expect(row.isNull(1) == (row.int64(0)! % 3 == 0))
        }
        #expect(read == materialized.rows)
        #expect(integers == materialized.rows.map { $0[2].flatMap { Int64($0) } })
        #expect(integers.first == 0 && integers.last == 35_000_000_000_000)
        do {
            try db.execPrepared("SELECT 1/0", []) { _ in Issue.record("a failed query has no rows") }
            Issue.record("division by zero accepted")
        } catch { #expect(error.sqlState == "22012") }
    }

    /// Integers read in place across bigint's whole range, and text that is not one read
    /// as strtoll reads it (its leading number, or 0).
    @Test func integersReadInPlaceCoverTheWholeRange() throws {
        let db = try PGTestDatabase.connect()
        let values: [Int64] = [0, 1, -1, 9, -10, 1_000_000_007, .max, .min, .max - 1, .min + 1, 1 << 62]
        var read: [Int64?] = []
        try db.execPrepared(
            "SELECT v FROM unnest($1::bigint[]) AS v UNION ALL SELECT NULL", [.ints(values)]
        ) { row in read.append(row.int64(0)) }
        #expect(read == values.map { $0 } + [nil])
        var odd: [Int64?] = []
        try db.execPrepared("SELECT unnest(ARRAY['12ab', '', '-', ' 7', '99999999999999999999'])", []) { row in
            odd.append(row.int64(0))
        }
        #expect(odd == [12, 0, 0, 7, .max])
    }

    @Test func errorCarriesSQLStateAndDetail() throws {
        let db = try PGTestDatabase.connect()
        try PGTestDatabase.freshSchema(db, "wrapper_errors")
        try db.exec("CREATE TABLE t (id int PRIMARY KEY)")
        try db.exec("INSERT INTO t VALUES ($1)", [.int(1)])
        do {
            try db.exec("INSERT INTO t VALUES ($1)", [.int(1)])
            Issue.record("duplicate key accepted")
        } catch {
            #expect(error.sqlState == "23505")
            #expect(error.detail?.contains("(id)=(1)") == true)
            #expect(!error.connectionBroken)
        }
        #expect(db.isConnected)
    }

    @Test func preparedStatementsAreCachedBySQL() throws {
        let db = try PGTestDatabase.connect()
        for i in 0..<3 {
            let r = try db.execPrepared("SELECT $1::int * 2", [.int(Int64(i))])
            #expect(r.rows == [[String(i * 2)]])
        }
        #expect(db.preparedCount == 1)
    }
}
