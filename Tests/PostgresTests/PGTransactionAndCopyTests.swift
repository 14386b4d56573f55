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

@Suite struct PGCopyBinaryTests {
    /// Each binary field as its type's send format: the server reads back the same values
    /// (doubles compared bit for bit through `float8send`).
    @Test func everyColumnTypeReadsBackAsWritten() throws {
        let db = try PGTestDatabase.connect()
        try PGTestDatabase.freshSchema(db, "wrapper_copy_binary")
        try db.exec("CREATE TABLE \"Odd Name\" (id bigint, d double precision, b boolean, t text, bin bytea)")
        let texts = ["", "tab\there\n", "back\\slash \\N", "é 😀 \u{1}"]
        let doubles: [Double] = [0.1 + 0.2, -0.0, .infinity, -.infinity, .leastNonzeroMagnitude, 1e300]
        let rows = (0..<3000).map { i in (Int64(i) * 3_000_000_007 - 4_000_000_000_000, i) }
        let n = try db.copyRowsBinary(into: "Odd Name", columns: ["id", "d", "b", "t", "bin"], rows) { row, buffer in
            let (id, i) = row
            buffer.row(fields: 5)
            buffer.int8(id)
            if i % 7 == 6 { buffer.null() } else { buffer.float8(doubles[i % doubles.count]) }
            buffer.bool(i % 2 == 0)
            buffer.text(texts[i % texts.count])
            [UInt8(i % 256), 0, 92, 10].withUnsafeBufferPointer { buffer.raw($0) }
        }
        #expect(n == rows.count)
        let back = try db.exec(
            "SELECT r.id::text AS k, encode(float8send(d), 'hex'), b::text, t, encode(bin, 'hex') FROM \"Odd Name\" AS r ORDER BY r.id"
        )
        let want: [[String?]] = rows.sorted { $0.0 < $1.0 }.map { id, i in
            let bits = doubles[i % doubles.count].bitPattern
            let d: String? =
                i % 7 == 6
                ? nil : (String(repeating: "0", count: bits.leadingZeroBitCount / 4) + String(bits, radix: 16))
            let hex = [UInt8(i % 256), 0, 92, 10].map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
            return [String(id), d, i % 2 == 0 ? "true" : "false", texts[i % texts.count], hex]
        }
        #expect(back.rows.count == want.count)
        #expect(zip(back.rows, want).first { $0.0 != $0.1 } == nil)
    }
}
