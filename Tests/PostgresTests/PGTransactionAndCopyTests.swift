import Postgres
import Testing

@Suite(.serialized) struct PGTransactionAndCopyTests {
    struct Boom: Error {}

    @Test func transactionCommitsOrRollsBack() throws {
        let db = try PGTestDatabase.connect()
        try PGTestDatabase.freshSchema(db, "wrapper_tx")
        try db.exec("CREATE TABLE t (id int PRIMARY KEY)")
        try db.transaction { try db.exec("INSERT INTO t VALUES (1)") }
        #expect(throws: Boom.self) {
            try db.transaction {
                try db.exec("INSERT INTO t VALUES (2)")
                throw Boom()
            }
        }
        #expect(!db.inTransaction)
        #expect(try db.exec("SELECT id FROM t ORDER BY id").rows == [["1"]])
    }

    @Test func copyInsertsRowsAndReportsTheCount() throws {
        let db = try PGTestDatabase.connect()
        try PGTestDatabase.freshSchema(db, "wrapper_copy")
        try db.exec("CREATE TABLE t (id bigint, name text)")
        let copied = try db.copyIn("COPY t (id, name) FROM STDIN") { send in
            for i in 1...1000 { try send("\(i)\tname \(i)\n") }
            try send("1001\t\\N\n")
        }
        #expect(copied == 1001)
        let r = try db.exec("SELECT count(*), count(name), max(id) FROM t")
        #expect(r.rows == [["1001", "1000", "1001"]])
    }

    @Test func copyWithBadDataFailsWithSQLStateAndKeepsTheConnection() throws {
        let db = try PGTestDatabase.connect()
        try PGTestDatabase.freshSchema(db, "wrapper_copy_bad")
        try db.exec("CREATE TABLE t (id bigint)")
        do {
            try db.copyIn("COPY t FROM STDIN") { send in try send("1\nnot a number\n") }
            Issue.record("bad COPY data accepted")
        } catch let error as PGError {
            #expect(error.sqlState == "22P02") // invalid_text_representation
        }
        #expect(try db.exec("SELECT count(*) FROM t").rows == [["0"]])
    }

    @Test func copyAbortedByTheBodyWritesNothing() throws {
        let db = try PGTestDatabase.connect()
        try PGTestDatabase.freshSchema(db, "wrapper_copy_abort")
        try db.exec("CREATE TABLE t (id bigint)")
        #expect(throws: Boom.self) {
            try db.copyIn("COPY t FROM STDIN") { send in
                try send("1\n")
                throw Boom()
            }
        }
        #expect(try db.exec("SELECT count(*) FROM t").rows == [["0"]])
    }
}

@Suite struct PGCopyTextTests {
    @Test func escapesTheFormatsSpecialCharactersAndNull() {
        #expect(PGCopyText.line(["a", nil, ""]) == "a\t\\N\t\n")
        #expect(
            PGCopyText.line(["tab\there", "line\nbreak\r", "back\\slash"])
                == "tab\\there\tline\\nbreak\\r\tback\\\\slash\n")
    }

    @Test func integersAreWrittenAsTheirDecimalDigits() {
        var buffer = PGCopyBuffer()
        for v: Int64 in [0, 7, -7, 10, -100, .max, .min] { buffer.field(v) }
        buffer.field(nil as String?)
        buffer.endRow()
        let want = "0\t7\t-7\t10\t-100\t\(Int64.max)\t\(Int64.min)\t\\N\n"
        #expect(String(decoding: buffer.bytes, as: UTF8.self) == want)
    }

    @Test func copiedRowsReadBackExactly() throws {
        let db = try PGTestDatabase.connect()
        try PGTestDatabase.freshSchema(db, "wrapper_copy_rows")
        try db.exec("CREATE TABLE \"Odd Name\" (id bigint, \"the text\" text)")
        var rows: [[String?]] = [
            ["1", "tab\there"], ["2", "line\nbreak\r\n"], ["3", "back\\slash \\N"], ["4", nil],
        ]
        rows.append(["5", "é 😀 \u{1}"])
        for i in 6...20_000 { rows.append([String(i), "row \(i)"]) }
        #expect(try db.copyRows(into: "Odd Name", columns: ["id", "the text"], rows) == rows.count)
        let back = try db.exec("SELECT t.id::text AS k, t.\"the text\" FROM \"Odd Name\" t ORDER BY t.id")
        #expect(back.rows.count == rows.count)
        // The first row that differs, if any (not the whole 20,000 in a failure message).
        let firstDifference = zip(back.rows, rows).first { $0.0 != $0.1 }
        #expect(firstDifference == nil)
    }
}
