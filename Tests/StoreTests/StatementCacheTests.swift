import SQLite
import Testing

/// The prepared-statement cache is bounded: ever new SQL (a client sending ever new
/// predicates) cannot grow it without end, and statements in use survive a reset of it.
@Suite struct StatementCacheTests {
    @Test func theCacheStaysWithinItsLimit() throws {
        let db = try Connection()
        let held = try db.prepare("SELECT -1")
        for i in 0..<(Connection.cacheLimit * 2 + 10) {
            let s = try db.prepare("SELECT \(i)")
            #expect(try s.step())
            #expect(db.cachedStatementCount <= Connection.cacheLimit)
        }
        #expect(try held.step())
        #expect(held.int64(0) == -1)
    }

    @Test func aRepeatedStatementIsTheCachedOne() throws {
        let db = try Connection()
        let a = try db.prepare("SELECT 1")
        #expect(try db.prepare("SELECT 1") === a)
    }

    /// Long texts are found first by where their bytes are (the same String passed again),
    /// then by their text (an equal String built anew): the same statement either way, and a
    /// text that differs only inside gets its own.
    @Test func aLongTextIsFoundByItsStorageAndByItsText() throws {
        let db = try Connection()
        let kept = "SELECT 1 AS first_column_of_a_long_text, 2 AS second"
        let a = try db.prepare(kept)
        #expect(try db.prepare(kept) === a)
        let rebuilt = ["SELECT 1 AS first_column_of_a_long_text,", "2 AS second"].joined(separator: " ")
        #expect(try db.prepare(rebuilt) === a)
        let other = try db.prepare("SELECT 1 AS first_column_of_a_long_text, 3 AS second")
        #expect(other !== a)
        #expect(try other.step())
        #expect(other.int64(1) == 3)
        #expect(try db.prepare(kept) === a)
    }
}
