import Foundation
import SQLite
import TestSupport
import Testing

/// The WAL writes gathered per commit (Sources/CSQLiteWAL/wal_writes.c): whatever a commit
/// wrote is in the -wal file once it returns, so another connection sees it and a copy of the
/// files taken then recovers every commit (recovery checks each frame's checksum, so a frame
/// or a rewritten header still waiting in a buffer would cut the log short there).
@Suite struct WALWritesTests {
    static func open(_ path: String, cachePages: Int = 2000) throws -> Connection {
        let db = try Connection(path: path)
        try db.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA cache_size=\(cachePages)")
        try db.execute("CREATE TABLE IF NOT EXISTS t(id INTEGER PRIMARY KEY, v INTEGER, b BLOB)")
        return db
    }

    static func scalar(_ db: Connection, _ sql: String) throws -> Int64 {
        let s = try db.prepareUncached(sql)
        _ = try s.step()
        return s.int64(0)
    }

    /// The -wal and database files as they are now, opened elsewhere: SQLite rebuilds the WAL
    /// index from the frames in the file.
    static func recovered(_ dir: TempDir, _ name: String) throws -> Connection {
        let copy = dir.file("copy-\(name)")
        for suffix in ["", "-wal"] {
            try? FileManager.default.removeItem(atPath: copy + suffix)
            try FileManager.default.copyItem(atPath: dir.file(name) + suffix, toPath: copy + suffix)
        }
        return try Connection(path: copy)
    }

    @Test func everyCommitIsInTheFileWhenItReturns() throws {
        let dir = TempDir()
        let path = dir.file("w.sqlite")
        let db = try Self.open(path)
        let reader = try Connection(path: path)
        var rows: Int64 = 0
        // One row; a commit of many frames (more than one buffer); many small ones.
        for count in [1, 200, 3, 1, 50] {
            try db.execute(
                "BEGIN; WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(count)) "
                    + "INSERT INTO t(v, b) SELECT i, zeroblob(2000) FROM n; COMMIT")
            rows += Int64(count)
            #expect(try Self.scalar(reader, "SELECT count(*) FROM t") == rows)
            let copy = try Self.recovered(dir, "w.sqlite")
            #expect(try Self.scalar(copy, "SELECT count(*) FROM t") == rows)
        }
    }

    /// A transaction bigger than its page cache writes frames before its commit and then
    /// writes some pages again in place; SQLite rewrites those frames' checksums after the
    /// commit frame.
    @Test func aCommitThatSpilledAndRewroteFramesRecovers() throws {
        let dir = TempDir()
        let path = dir.file("s.sqlite")
        let db = try Self.open(path, cachePages: 10)
        try db.execute(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 400) "
                + "INSERT INTO t(v, b) SELECT i, zeroblob(500) FROM n")
        try db.execute("BEGIN")
        for round in 1...5 {
            try db.execute("UPDATE t SET v = v + \(round), b = zeroblob(\(500 + round))")
        }
        try db.execute("COMMIT")
        try db.execute("UPDATE t SET v = v + 1 WHERE id = 7")
        let reader = try Connection(path: path)
        let copy = try Self.recovered(dir, "s.sqlite")
        for other in [reader, copy] {
            #expect(try Self.scalar(other, "SELECT sum(v) FROM t") == 400 * 401 / 2 + 400 * 15 + 1)
            #expect(try Self.scalar(other, "SELECT count(*) FROM t WHERE length(b) = 505") == 400)
            let check = try other.prepareUncached("PRAGMA integrity_check")
            _ = try check.step()
            #expect(check.text(0) == "ok")
        }
    }

    @Test func aRolledBackSpillLeavesTheNextCommitWhole() throws {
        let dir = TempDir()
        let path = dir.file("r.sqlite")
        let db = try Self.open(path, cachePages: 10)
        try db.execute(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300) "
                + "INSERT INTO t(v, b) SELECT i, zeroblob(500) FROM n")
        try db.execute("BEGIN; UPDATE t SET b = zeroblob(900); ROLLBACK")
        try db.execute("UPDATE t SET v = 0 WHERE id <= 10")
        let copy = try Self.recovered(dir, "r.sqlite")
        #expect(try Self.scalar(copy, "SELECT count(*) FROM t WHERE v = 0") == 10)
        #expect(try Self.scalar(copy, "SELECT count(*) FROM t WHERE length(b) = 500") == 300)
    }
}
