import Model
import SQLite
import TestSupport
import Testing

@testable import Store

#if canImport(Glibc)
    import Glibc

    /// What wakes `--watch auto` on a file store (protocol.md §5, "Watching"): its own files
    /// being written, and a `-wal` created later; never another file of the directory, and
    /// never the store's own commits.
    @Suite struct StoreFileWatchTests {
        func readable(_ fd: Int32) -> Bool {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            return poll(&p, 1, 50) == 1
        }

        func append(_ path: String) {
            let fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
            _ = write(fd, "x", 1)
            close(fd)
        }

        @Test func onlyTheStoresFilesWakeIt() throws {
            let dir = TempDir()
            let store = dir.file("s.sqlite")
            append(store)
            let watch = try #require(StoreFileWatch(path: store))
            // Another file beside the store: created (seen by the directory watch), then written.
            append(dir.file("app.log"))
            _ = watch.drain()
            for _ in 0..<20 { append(dir.file("app.log")) }
            #expect(!readable(watch.descriptor))
            // The log made after the watch began, then written again: both wake it.
            append(store + "-wal")
            #expect(readable(watch.descriptor))
            #expect(watch.drain())
            append(store + "-wal")
            #expect(readable(watch.descriptor) && watch.drain())
            #expect(watch.logWritten)
            // The file alone (what a checkpoint writes): a wake, but none that a commit follows.
            append(store)
            #expect(readable(watch.descriptor) && watch.drain())
            #expect(!watch.logWritten)
            append(store)
            append(store + "-wal")
            #expect(watch.drain() && watch.logWritten)
        }

        @Test func aCheckpointWakesItWithoutAWriteToTheLog() throws {
            let dir = TempDir()
            let path = dir.file("s.sqlite")
            let store = try SQLiteStore.open(path: path, model: Models.contacts)
            let watch = try #require(store.makeChangeAnnouncer(log: { _ in }) as? StoreFileWatch)
            let plain = try Connection(path: path)
            try plain.execute("INSERT INTO \"Group\" (title) VALUES ('plain')")
            #expect(watch.drain() && watch.logWritten)
            try plain.execute("PRAGMA wal_checkpoint(PASSIVE)")
            #expect(readable(watch.descriptor) && watch.drain())
            #expect(!watch.logWritten)
        }

        func dataVersion(_ db: Connection) throws -> Int64 {
            let s = try db.prepareUncached("PRAGMA data_version")
            _ = try s.step()
            return s.int64(0)
        }

        func insert(_ store: SQLiteStore, _ title: String) throws {
            let id = try store.reserveID(for: "Group")
            try store.write(StoreBatch(inserts: [(id, ["title": .string(title)])], author: "me"))
        }

        @Test func theStoresOwnCommitsDoNotWakeItsWatchOtherWritersDo() throws {
            let dir = TempDir()
            let path = dir.file("s.sqlite")
            let store = try SQLiteStore.open(path: path, model: Models.contacts)
            let watch = try #require(store.makeChangeAnnouncer(log: { _ in }) as? StoreFileWatch)
            // Another fetchd store on the file, in this process and on this thread, not watching.
            let other = try SQLiteStore.open(path: path, model: Models.contacts)
            let plain = try Connection(path: path)
            try plain.execute("PRAGMA busy_timeout=2000")
            _ = watch.drain()
            for round in 0..<3 {
                try insert(store, "mine \(round)")
                #expect(!readable(watch.descriptor), "own save, round \(round)")
                try insert(other, "other \(round)")
                #expect(readable(watch.descriptor) && watch.drain(), "the other store's save, round \(round)")
                try plain.execute("INSERT INTO \"Group\" (title) VALUES ('plain')")
                #expect(readable(watch.descriptor) && watch.drain(), "a plain client's commit, round \(round)")
            }
            // A write that starts the WAL over after a full checkpoint (its header rewritten).
            try plain.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            _ = watch.drain()
            try insert(store, "after the checkpoint")
            #expect(!readable(watch.descriptor))
            // Upkeep commits through the second connection while a snapshot is held.
            store.readSnapshots = .held
            store.retention.heartbeatInterval = 0
            try store.holdSnapshot()
            let before = try dataVersion(plain)
            store.recordCursorIfDue()
            #expect(try dataVersion(plain) != before, "the cursor was written")
            #expect(!readable(watch.descriptor))
            // A commit outside any store's observer still wakes it.
            try plain.execute("INSERT INTO \"Group\" (title) VALUES ('last')")
            #expect(readable(watch.descriptor) && watch.drain())
        }

        @Test func eachCommitOfTheObservedConnectionIsToldAndNoOtherOne() throws {
            let dir = TempDir()
            let path = dir.file("o.sqlite")
            let db = try Connection(path: path)
            try db.execute("PRAGMA journal_mode=WAL; CREATE TABLE t(x)")
            let other = try Connection(path: path)
            var calls = 0
            let commits = OwnCommits { calls += 1 }
            #expect(db.observeCommits(commits))
            try db.execute("INSERT INTO t VALUES (1)") // a statement's own commit
            try db.execute("BEGIN; INSERT INTO t VALUES (2); INSERT INTO t VALUES (3); COMMIT")
            #expect(calls == 2)
            // Reads, a rolled-back write and another connection's commit are not its commits.
            try db.execute("SELECT count(*) FROM t")
            try db.execute("BEGIN; INSERT INTO t VALUES (4); ROLLBACK")
            try other.execute("INSERT INTO t VALUES (5)")
            #expect(calls == 2)
            #expect(db.observeCommits(nil))
            try db.execute("INSERT INTO t VALUES (6)")
            #expect(calls == 2)
            // No WAL of fetchd's VFS to observe.
            #expect(!(try Connection(path: ":memory:")).observeCommits(commits))
        }
    }
#endif
