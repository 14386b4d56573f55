import SQLite
import Testing

@Suite struct SQLiteWrapperTests {
    @Test func roundTripsEveryStorageClass() throws {
        let db = try Connection()
        try db.execute("CREATE TABLE t(a, b, c, d, e)")
        try db.prepare("INSERT INTO t VALUES (?, ?, ?, ?, ?)")
            .run([.integer(Int64.min), .real(0.1), .text("héllo\u{0}x"), .blob([0, 1, 255]), .null])
        let s = try db.prepare("SELECT a, b, c, d, e FROM t")
        #expect(try s.step())
        #expect(s.value(0) == .integer(Int64.min))
        #expect(s.value(1) == .real(0.1))
        #expect(s.value(2) == .text("héllo\u{0}x"))
        #expect(s.value(3) == .blob([0, 1, 255]))
        #expect(s.value(4) == .null)
        #expect(try !s.step())
    }

    @Test func registeredFunctionAndCollationAreUsedBySQL() throws {
        let db = try Connection()
        try db.createFunction("twice", arity: 1) { args in
            if case .integer(let v) = args[0] { return .integer(v * 2) } else { return .null }
        }
        // Reverse byte order, to prove ORDER BY uses ours.
        try db.createCollation("reversed") { a, b in
            let x = Array(a)
            let y = Array(b)
            return x == y ? 0 : (x.lexicographicallyPrecedes(y) ? 1 : -1)
        }
        try db.execute("CREATE TABLE t(s TEXT); INSERT INTO t VALUES ('a'), ('c'), ('b')")
        let order = try db.prepare("SELECT s FROM t ORDER BY s COLLATE reversed")
        var seen: [String] = []
        while try order.step() { seen.append(order.text(0)) }
        #expect(seen == ["c", "b", "a"])
        let f = try db.prepare("SELECT twice(21)")
        #expect(try f.step())
        #expect(f.int64(0) == 42)
    }

    @Test func failedTransactionLeavesNothing() throws {
        let db = try Connection()
        try db.execute("CREATE TABLE t(x INTEGER NOT NULL)")
        #expect(throws: SQLiteError.self) {
            try db.transaction {
                try db.prepare("INSERT INTO t VALUES (1)").run()
                try db.prepare("INSERT INTO t VALUES (NULL)").run()
            }
        }
        let c = try db.prepare("SELECT count(*) FROM t")
        _ = try c.step()
        #expect(c.int64(0) == 0)
        #expect(!db.isInTransaction)
    }
}
