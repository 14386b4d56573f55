import Contexts
import Model
import Predicates
import SQLite
import Store
import TestSupport
import Testing

@testable import Controllers

/// Batch requests in-process against SQLite's own statements on the same kind of file (WAL,
/// one transaction, an index on the sort key), each with a live controller on the entity
/// that must end exactly right (FETCHD_BENCH=1, release; see BenchmarkTests). Phases are
/// printed too, so a regression shows where.
@Suite(.serialized, .enabled(if: getenvString("FETCHD_BENCH") == "1")) struct BatchBenchmarkTests {
    static let model = ObjectModel(entities: [
        Entity(
            name: "Msg",
            attributes: [
                Attribute(name: "ts", type: .integer, indexed: true), Attribute(name: "sender", type: .string),
                Attribute(name: "body", type: .string),
            ])
    ])

    static func rows(_ n: Int) -> [Snapshot] {
        var rng = SeededRandom(seed: 20_261_123)
        return (1...n).map { i in
            [
                "ts": .integer(Int64(rng.int(0..<1 << 47))), "sender": .string("sender-\(i % 500)"),
                "body": .string("body of message \(i) for the benchmark"),
            ]
        }
    }

    /// The same rows through one prepared INSERT in one transaction, into a table like the
    /// entity's (primary key, the three columns, an index on ts), with the store's page cache.
    static func raw(_ rows: [Snapshot], _ dir: TempDir) throws -> (Double, Connection) {
        let db = try Connection(path: dir.file("raw.sqlite"))
        try db.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA cache_size=-65536")
        try db.execute(
            "CREATE TABLE msg(id INTEGER PRIMARY KEY, ts INTEGER NOT NULL, sender TEXT NOT NULL, body TEXT NOT NULL)")
        try db.execute("CREATE INDEX msg_ts ON msg(ts, id)")
        let t = BenchmarkTests.now()
        try db.transaction {
            let s = try db.prepare("INSERT INTO msg(id, ts, sender, body) VALUES (?, ?, ?, ?)")
            for (i, r) in rows.enumerated() {
                try s.run([
                    .integer(Int64(i + 1)), ValueEncoding.sql(r["ts"]!), ValueEncoding.sql(r["sender"]!),
                    ValueEncoding.sql(r["body"]!),
                ])
            }
        }
        return (BenchmarkTests.now() - t, db)
    }

    static func controller(_ graph: ObjectGraph) throws -> FetchedResultsController {
        let main = try graph.context(ObjectGraph.mainContext)
        let request = try RequestCompiler(model: model).compile(
            FetchRequest(entity: "Msg", sortDescriptors: [SortDescriptor(key: "ts")]))
        let c = FetchedResultsController(name: "msgs", source: main, request: request, model: model)
        try c.performFetch()
        graph.observeChangeSets { _ = c.apply($0) }
        return c
    }

    static let n = Int(getenvString("FETCHD_BENCH_BATCH_ROWS") ?? "") ?? 1_000_000

    @Test func batchInsertAgainstRawInserts() throws {
        let dir = TempDir()
        let rows = Self.rows(Self.n)
        let (raw, _) = try Self.raw(rows, dir)
        let graph = ObjectGraph(store: try SQLiteStore.open(path: dir.file("f.sqlite"), model: Self.model))
        let c = try Self.controller(graph)
        let t = BenchmarkTests.now()
        try graph.batchInsert("Msg", rows: rows)
        let engine = BenchmarkTests.now() - t
        #expect(c.count == Self.n)
        BenchmarkTests.report(
            "n=\(Self.n) batchInsert with a live controller \(BenchmarkTests.fmt(engine * 1000)) ms vs raw INSERTs \(BenchmarkTests.fmt(raw * 1000)) ms: \(BenchmarkTests.fmt(engine / raw))x"
        )
    }

    /// A tenth of the rows updated, then deleted, by predicate, against the same statement on
    /// the raw table.
    @Test func batchUpdateAndDeleteAgainstRawStatements() throws {
        let dir = TempDir()
        let rows = Self.rows(Self.n)
        let (_, db) = try Self.raw(rows, dir)
        let graph = ObjectGraph(store: try SQLiteStore.open(path: dir.file("f.sqlite"), model: Self.model))
        try graph.batchInsert("Msg", rows: rows)
        let c = try Self.controller(graph)
        let compiler = RequestCompiler(model: Self.model)
        // ts below a tenth of its range: about n / 10 rows.
        let cut = Int64(1 << 47) / 10
        let filter = try compiler.compile(FetchRequest(entity: "Msg", predicate: "ts < \(cut)")).filter
        var t = BenchmarkTests.now()
        try db.transaction { try db.execute("UPDATE msg SET body = 'changed' WHERE ts < \(cut)") }
        let rawUpdate = BenchmarkTests.now() - t
        t = BenchmarkTests.now()
        let updated = try graph.batchUpdate("Msg", filter: filter, values: ["body": .string("changed")])
        let update = BenchmarkTests.now() - t
        t = BenchmarkTests.now()
        try db.transaction { try db.execute("DELETE FROM msg WHERE ts < \(cut)") }
        let rawDelete = BenchmarkTests.now() - t
        t = BenchmarkTests.now()
        let deleted = try graph.batchDelete("Msg", filter: filter, ids: nil)
        let delete = BenchmarkTests.now() - t
        #expect(updated == deleted && c.count == Self.n - deleted)
        BenchmarkTests.report(
            "n=\(Self.n) batchUpdate of \(updated) rows \(BenchmarkTests.fmt(update * 1000)) ms vs raw UPDATE \(BenchmarkTests.fmt(rawUpdate * 1000)) ms: \(BenchmarkTests.fmt(update / rawUpdate))x"
        )
        BenchmarkTests.report(
            "n=\(Self.n) batchDelete of \(deleted) rows \(BenchmarkTests.fmt(delete * 1000)) ms vs raw DELETE \(BenchmarkTests.fmt(rawDelete * 1000)) ms: \(BenchmarkTests.fmt(delete / rawDelete))x"
        )
    }
}
