import Model
import SQLite
import TestSupport
import Testing

@testable import Store

/// Ids ahead of need (protocol.md §5, "Ids ahead of need"): blocks reserved at open and topped
/// up in saves, so inserts hand out numbers while another process holds the write lock.
@Suite struct IDsAheadOfNeedTests {
    let dir = TempDir()
    var file: String { dir.file("shared.sqlite") }

    /// Another connection holding the write lock (BEGIN IMMEDIATE) until `release`.
    func holdLock() throws -> Connection {
        let db = try Connection(path: file)
        try db.execute("PRAGMA busy_timeout=2000; BEGIN IMMEDIATE")
        return db
    }

    func store() throws -> SQLiteStore {
        let s = try SQLiteStore.open(path: file, model: Models.contacts)
        // Fail at once where the old behaviour waited: a test that would block fails fast.
        s.busyTimeoutMilliseconds = 0
        try s.connection.execute("PRAGMA busy_timeout=0")
        return s
    }

    @Test func aFreshlyOpenedStoreInsertsWhileAnotherProcessWrites() throws {
        let store = try store()
        let other = try holdLock()
        defer { try? other.execute("ROLLBACK") }
        // Every entity has its first block and its spare from the open: no lock needed.
        var numbers: [Int64] = []
        for _ in 0..<48 { numbers.append(try store.reserveID(for: "Tag").number) }
        #expect(numbers == Array(1...48))
        #expect(try store.reserveID(for: "Group").number == 1)
        // Past the first block and its spare, an insert needs the lock: storeBusy, nothing taken.
        #expect(throws: EngineError.self) { try store.reserveID(for: "Tag") }
    }

    @Test func aSaveTopsUpABlockMoreThanHalfUsed() throws {
        let store = try store()
        let ids = try (0..<9).map { _ in try store.reserveID(for: "Tag") }
        try store.write(StoreBatch(inserts: ids.map { ($0, ["label": .string("t")]) }))
        let other = try holdLock()
        defer { try? other.execute("ROLLBACK") }
        // 7 left of the first block, then its spare of 32 (reserved at open; the save had
        // nothing to top up, and a held lock stops the top-up a spare's first number tries).
        let more = try (0..<39).map { _ in try store.reserveID(for: "Tag").number }
        #expect(more == Array(10...48))
        #expect(throws: EngineError.self) { try store.reserveID(for: "Tag") }
    }

    /// Opening an existing store writes nothing and needs no lock: it opens while another
    /// process writes, reads at once, and leaves its ids to the first save or insert.
    @Test func anExistingStoreOpensWhileAnotherProcessWrites() throws {
        try SQLiteStore.open(path: file, model: Models.contacts).close()
        let other = try holdLock()
        defer { try? other.execute("ROLLBACK") }
        let store = try SQLiteStore.open(path: file, model: Models.contacts)
        defer { store.close() }
        #expect(store.idBlocks.isEmpty)
        #expect(try store.read(ObjectID(entity: "Tag", number: 1)) == nil)
    }

    /// A store that has no block for an entity (a busy open) gets one in its first save.
    @Test func aSaveGivesABlockToEveryEntityWithout() throws {
        let store = try store()
        store.idBlocks.removeAll()
        let first = try store.reserveID(for: "Tag")
        try store.write(StoreBatch(inserts: [(first, ["label": .string("t")])]))
        let other = try holdLock()
        defer { try? other.execute("ROLLBACK") }
        // The save reserved the next Group numbers (past the 48 reserved at open).
        #expect(try store.reserveID(for: "Group").number == 49)
    }

    @Test func closingGivesBackTheUnusedBlocksSoIdsStayDense() throws {
        do {
            let store = try store()
            let id = try store.reserveID(for: "Tag")
            try store.write(StoreBatch(inserts: [(id, ["label": .string("t")])]))
            store.close()
        }
        let raw = try Connection(path: file)
        try raw.execute(#"INSERT INTO "Tag" (label) VALUES ('plain')"#)
        #expect(raw.lastInsertRowID == 2)
    }

    @Test func aBatchContinuesTheFirstBlockOnAFreshStore() throws {
        let store = try store()
        _ = try store.reserveID(for: "Tag")
        #expect(try store.reserveIDs(for: "Tag", count: 5) == 2..<7)
        #expect(try store.reserveIDs(for: "Tag", count: 30) == 7..<37)
        #expect(try store.reserveIDs(for: "Tag", count: 100) == 37..<137)
        #expect(try store.reserveID(for: "Tag").number == 137)
    }
}
