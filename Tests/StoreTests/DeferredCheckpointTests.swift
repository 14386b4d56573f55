import Foundation
import SQLite
import TestSupport
import Testing

/// The WAL checkpoint taken out of commits (`Connection.deferCheckpoints`): the database file
/// grows only when the caller runs the checkpoint, and SQLite's own behaviour (a checkpoint
/// inside the commit) is what a connection that did not defer keeps.
@Suite struct DeferredCheckpointTests {
    static func open(_ dir: TempDir) throws -> Connection {
        let db = try Connection(path: dir.file("c.sqlite"))
        try db.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL")
        try db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, b BLOB)")
        return db
    }

    /// About `pages` pages of new rows in one transaction.
    static func write(_ db: Connection, pages: Int) throws {
        try db.execute(
            "BEGIN; WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(pages)) "
                + "INSERT INTO t(b) SELECT zeroblob(3900) FROM n; COMMIT")
    }

    static func fileSize(_ dir: TempDir) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: dir.file("c.sqlite")))?[.size] as? Int) ?? -1
    }

    @Test func theFileGrowsOnlyWhenTheCallerCheckpoints() throws {
        let dir = TempDir()
        let db = try Self.open(dir)
        db.deferCheckpoints(atPages: 100)
        let before = Self.fileSize(dir)
        try Self.write(db, pages: 50)
        #expect(!db.checkpointIsDue)
        #expect(try !db.checkpointIfDue())
        try Self.write(db, pages: 100)
        #expect(db.checkpointIsDue)
        #expect(Self.fileSize(dir) == before, "the commit copied nothing into the file")
        #expect(try db.checkpointIfDue())
        #expect(Self.fileSize(dir) > before + 140 * 4000)
        #expect(!db.checkpointIsDue)
        #expect(try !db.checkpointIfDue())
    }

    @Test func withoutDeferringTheCommitCheckpoints() throws {
        let dir = TempDir()
        let db = try Self.open(dir)
        let before = Self.fileSize(dir)
        try Self.write(db, pages: 1100)
        #expect(!db.checkpointIsDue)
        #expect(Self.fileSize(dir) > before + 1000 * 4000)
    }
}
