import Model
import SQLite
import Store
import TestSupport
import Testing

/// A bulk insert at least as large as the table rebuilds the entity's indexes after the rows
/// go in (Store.write): they are all there afterwards, with every row in them, and a write
/// that fails leaves the store, indexes included, as it was.
@Suite struct BulkIndexTests {
    static let model = ObjectModel(entities: [
        Entity(
            name: "Item",
            attributes: [Attribute(name: "k", type: .integer, indexed: true), Attribute(name: "s", type: .string)],
            relationships: [Relationship(name: "box", destination: "Box", toMany: false, inverse: "items")]),
        Entity(
            name: "Box", attributes: [Attribute(name: "n", type: .integer)],
            relationships: [Relationship(name: "items", destination: "Item", toMany: true, inverse: "box")]),
    ])

    static func indexes(_ db: Connection) throws -> [String] {
        let s = try db.prepareUncached(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'Item' AND name LIKE '\\_idx%' ESCAPE '\\' ORDER BY name"
        )
        var out: [String] = []
        while try s.step() { out.append(s.text(0)) }
        return out
    }

    static func pragma(_ db: Connection, _ name: String) throws -> Int64 {
        let s = try db.prepareUncached("PRAGMA \(name)")
        _ = try s.step()
        return s.int64(0)
    }

    /// 25,000 new items (an empty table: their indexes are rebuilt), keys in scrambled order.
    static func load(_ store: any Store) throws -> StoreBatch {
        var batch = StoreBatch()
        for i in 0..<25_000 {
            batch.inserts.append(
                (
                    try store.reserveID(for: "Item"),
                    ["k": .integer(Int64((i * 7919) % 25_000)), "s": .string("x"), "box": .null]
                ))
        }
        return batch
    }

    /// A load as large whose last row refers to a box that does not exist: the foreign key
    /// fails at commit, after the indexes were dropped.
    static func failingLoad(_ store: any Store) throws -> StoreBatch {
        var batch = StoreBatch()
        for _ in 0..<25_000 {
            batch.inserts.append((try store.reserveID(for: "Item"), ["k": .integer(1), "s": .string("x")]))
        }
        batch.inserts.append(
            (
                try store.reserveID(for: "Item"),
                ["k": .integer(1), "s": .string("x"), "box": .object(ObjectID(entity: "Box", number: 5))]
            ))
        return batch
    }

    @Test func indexesAreRebuiltWithEveryRow() throws {
        let dir = TempDir()
        let store = try SQLiteStore.open(path: dir.file("bulk.sqlite"), model: Self.model)
        let db = try store.connection
        let before = try Self.indexes(db)
        #expect(before.count == 2)
        try store.write(try Self.load(store))
        #expect(try Self.indexes(db) == before)
        let check = try db.prepareUncached("SELECT count(*) FROM \"Item\" INDEXED BY \"_idx_Item_k\" WHERE \"k\" >= 0")
        _ = try check.step()
        #expect(check.int64(0) == 25_000)
        check.reset()
        let integrity = try db.prepareUncached("PRAGMA integrity_check")
        _ = try integrity.step()
        #expect(integrity.text(0) == "ok")
        // The rebuild's small sort runs and sort threads end with it.
        #expect(try Self.pragma(db, "cache_size") == -Int64(SQLiteStore.pageCacheKiB))
        #expect(try Self.pragma(db, "threads") == 0)
    }

    @Test func aFailedBulkWriteLeavesTheIndexes() throws {
        let dir = TempDir()
        let store = try SQLiteStore.open(path: dir.file("bulk.sqlite"), model: Self.model)
        let db = try store.connection
        let batch = try Self.failingLoad(store)
        #expect(throws: EngineError.self) { try store.write(batch) }
        #expect(try Self.indexes(db).count == 2)
        #expect(try store.count(entity: "Item", filter: nil) == 0)
        #expect(try Self.pragma(db, "cache_size") == -Int64(SQLiteStore.pageCacheKiB))
    }
}
