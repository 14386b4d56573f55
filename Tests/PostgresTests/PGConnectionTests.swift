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
