import Model
import Postgres
import Store
import TestSupport
import Testing

/// BulkIndexTests on PostgreSQL: a COPY load at least as large as the table drops the
/// entity's indexes and builds the same ones again after the rows, in the same transaction;
/// a load that fails leaves the indexes, and no row, behind.
@Suite(.serialized) struct PGBulkIndexTests {
    /// The index definitions of `Item`, as PostgreSQL prints them.
    static func indexes(_ c: PGConnection, _ schema: String) throws -> [String] {
        try c.exec(
            "SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND tablename = 'Item' ORDER BY indexname",
            [.text(schema)]
        ).rows.map { $0[0] ?? "" }
    }

    @Test func indexesAreRebuiltWithEveryRow() throws {
        let scratch = try PGScratch("bulk_index")
        let store = try PGStore.open(url: scratch.url, model: BulkIndexTests.model, schema: scratch.schema)
        defer { store.close() }
        let c = try scratch.client()
        let before = try Self.indexes(c, scratch.schema)
        #expect(before.count == 3, "the primary key, k and box: \(before)")
        try store.write(try BulkIndexTests.load(store))
        #expect(try Self.indexes(c, scratch.schema) == before)
        // Read through the index alone: every row is in it.
        let counted = try c.exec(
            """
            SET enable_seqscan = off; SET enable_bitmapscan = off;
            SELECT count(*) FROM "Item" WHERE "k" >= 0
            """)
        #expect(counted.int64(0, 0) == 25_000)
        let plan = try c.exec("EXPLAIN SELECT count(*) FROM \"Item\" WHERE \"k\" >= 0").rows.map { $0[0] ?? "" }
        #expect(plan.joined().contains("_idx_Item_k"), "\(plan)")
        // A second load no larger than the table keeps its indexes up as it goes.
        var more = StoreBatch()
        for _ in 0..<300 {
            more.inserts.append((try store.reserveID(for: "Item"), ["k": .integer(-1), "s": .string("y")]))
        }
        try store.write(more)
        #expect(try store.count(entity: "Item", filter: nil) == 25_300)
        #expect(try Self.indexes(c, scratch.schema) == before)
    }

    @Test func aFailedBulkWriteLeavesTheIndexes() throws {
        let scratch = try PGScratch("bulk_index_fail")
        let store = try PGStore.open(url: scratch.url, model: BulkIndexTests.model, schema: scratch.schema)
        defer { store.close() }
        let c = try scratch.client()
        let before = try Self.indexes(c, scratch.schema)
        let batch = try BulkIndexTests.failingLoad(store)
        #expect(throws: EngineError.self) { try store.write(batch) }
        #expect(try Self.indexes(c, scratch.schema) == before)
        #expect(try store.count(entity: "Item", filter: nil) == 0)
    }
}
