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
}
