import Model
import SQLite
import TestSupport
import Testing

@testable import Store

/// The read snapshot a host keeps between merges (protocol.md §5, "One state per message"):
/// other connections' commits stay out of every read until the snapshot is renewed, and a
/// write ends it and takes a new one.
@Suite struct ReadSnapshotTests {
    let dir = TempDir()
    var file: String { dir.file("snap.sqlite") }

    func plain() throws -> Connection {
        let db = try Connection(path: file)
        try db.execute("PRAGMA busy_timeout=2000")
        return db
    }

    func held() throws -> SQLiteStore {
        let store = try SQLiteStore.open(path: file, model: Models.contacts)
        store.readSnapshots = .held
        try store.holdSnapshot()
        return store
    }

    @Test func aCommitRightAfterTheSnapshotIsTakenStaysOutOfIt() throws {
        let store = try held()
        // Nothing was read in the snapshot yet: a commit now must not show either.
        try plain().execute("INSERT INTO \"Group\" (title) VALUES ('late')")
        #expect(try store.count(entity: "Group", filter: nil) == 0)
        #expect(try !store.hasExternalChanges())
        #expect(try store.currentToken == store.mergeCursor)

        try store.renewSnapshot()
        #expect(try store.count(entity: "Group", filter: nil) == 1)
        #expect(try store.hasExternalChanges())
    }

    @Test func aWriteEndsTheSnapshotAndOwesAMergeForWhatLandedBeforeIt() throws {
        let store = try held()
        let raw = try plain()
        try raw.execute("INSERT INTO \"Group\" (title) VALUES ('before')")
        #expect(try store.count(entity: "Group", filter: nil) == 0)
        let g = try store.reserveID(for: "Group")
        try store.write(StoreBatch(inserts: [(g, ["title": .string("mine")])], author: "me"))
        // The write ran on the newest state, and the snapshot after it holds both rows; the
        // commit before the write is the caller's to merge (it was there when the write began).
        #expect(try store.count(entity: "Group", filter: nil) == 2)
        #expect(try store.hasExternalChanges())
        #expect(!store.owesMerge)
        try raw.execute("INSERT INTO \"Group\" (title) VALUES ('after')")
        #expect(try store.count(entity: "Group", filter: nil) == 2)
    }

    @Test func aStatementLeftSteppingDoesNotKeepTheOldStateAfterARenewal() throws {
        let store = try held()
        let raw = try plain()
        try raw.execute("INSERT INTO \"Group\" (title) VALUES ('one'); INSERT INTO \"Group\" (title) VALUES ('two')")
        try store.renewSnapshot()
        // One row read of two: the statement keeps its read transaction open past a COMMIT.
        let s = try store.connection.prepare("SELECT title FROM \"Group\"")
        #expect(try s.step())
        try raw.execute("INSERT INTO \"Group\" (title) VALUES ('three')")
        try store.renewSnapshot()
        #expect(try store.count(entity: "Group", filter: nil) == 3)
    }

    @Test func upkeepWritesLeaveTheSnapshotAsItIs() throws {
        let store = try held()
        try plain().execute("INSERT INTO \"Group\" (title) VALUES ('other')")
        // Past the first block and its spare: a block of its own, taken on the second connection.
        for _ in 0..<60 { _ = try store.reserveID(for: "Contact") }
        _ = try store.purgeHistory(before: 1)
        #expect(try store.count(entity: "Group", filter: nil) == 0)
        #expect(store.isOpen)
    }
}
