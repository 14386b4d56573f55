import Contexts
import Model
import Predicates
import SQLite
import Store
import TestSupport
import Testing

@testable import Controllers

/// Controllers of one engine while another engine (a second fetchd) and a plain SQLite
/// connection (a script) write the same file. After every merge of external changes each
/// controller's mirror must equal a fresh fetch, and every transaction is merged exactly once.
@Suite struct ExternalMergeTests {
    static let specs: [ContextOracleTests.Spec] = ContextOracleTests.specs.filter { $0.context != "other" }

    /// A plain SQL client of the shared store (a script), in its SQL dialect.
    struct RawClient {
        var postgres = false
        var execute: (String) throws -> Void
        var ids: (String) throws -> [Int64]

        static func sqlite(_ raw: Connection) -> RawClient {
            RawClient(
                execute: { try raw.execute($0) },
                ids: { table in
                    let s = try raw.prepareUncached("SELECT _pk FROM \"\(table)\" ORDER BY _pk")
                    var out: [Int64] = []
                    while try s.step() { out.append(s.int64(0)) }
                    return out
                })
        }
    }

    /// One random write by a plain client: a statement or a few in one transaction.
    static func rawWrite(_ db: RawClient, _ rng: inout SeededRandom) throws {
        let books = try db.ids("Book")
        let authors = try db.ids("Author")
        let statements = rng.int(1..<4)
        try db.execute(db.postgres ? "BEGIN" : "BEGIN IMMEDIATE")
        for _ in 0..<statements {
            let author = authors.isEmpty || rng.chance(0.1) ? "NULL" : String(authors[rng.int(0..<authors.count)])
            switch rng.int(0..<10) {
            case 0..<3:
                let title = Library.titles[rng.int(0..<Library.titles.count)].replacingOccurrences(of: "'", with: "''")
                try db.execute(
                    """
                    INSERT INTO "Book" (title, price, year, flag, note, author)
                    VALUES ('\(title)', \(rng.int(0..<30)), \(2000 + rng.int(0..<5)), '\(rng.int(0..<2))', 'n\(rng.int(0..<3))', \(author))
                    """)
            case 3 where !books.isEmpty:
                try db.execute("DELETE FROM \"Book\" WHERE _pk = \(books[rng.int(0..<books.count)])")
            case 4..<8 where !books.isEmpty:
                let id = books[rng.int(0..<books.count)]
                let set = [
                    "price = \(rng.int(0..<30))", "year = \(2000 + rng.int(0..<5))",
                    db.postgres ? "flag = NOT flag" : "flag = 1 - flag",
                    "author = \(author)", "title = '\(Library.titles[rng.int(0..<Library.titles.count)])'",
                ][rng.int(0..<5)]
                try db.execute("UPDATE \"Book\" SET \(set) WHERE _pk = \(id)")
            case 8 where !authors.isEmpty:
                try db.execute(
                    "UPDATE \"Author\" SET rank = \(rng.int(0..<10)), name = '\(Library.names[rng.int(0..<Library.names.count)])' WHERE _pk = \(authors[rng.int(0..<authors.count)])"
                )
            default:
                let values = "(\(authors.first ?? 1), 'Zed', \(rng.int(0..<10)))"
                try db.execute(
                    db.postgres
                        ? "INSERT INTO \"Author\" (_pk, name, rank) VALUES \(values) ON CONFLICT (_pk) DO UPDATE SET name = excluded.name, rank = excluded.rank"
                        : "INSERT OR REPLACE INTO \"Author\" (_pk, name, rank) VALUES \(values)")
            }
        }
        // Some scripts give up: nothing of theirs may show.
        try db.execute(rng.chance(0.15) ? "ROLLBACK" : "COMMIT")
    }

    @Test(arguments: [UInt64(31), 32])
    func controllersFollowOtherWritersExactlyOnce(seed: UInt64) throws {
        let dir = TempDir()
        let file = dir.file("shared.sqlite")
        let a = ObjectGraph(
            store: try SQLiteStore.open(path: file, model: Library.model) { try SQLFunctions.register(on: $0) })
        let b = ObjectGraph(
            store: try SQLiteStore.open(path: file, model: Library.model) { try SQLFunctions.register(on: $0) })
        let raw = try Connection(path: file)
        try raw.execute("PRAGMA busy_timeout=2000; PRAGMA foreign_keys=ON")
        try Self.followOtherWriters(seed: seed, a, b, .sqlite(raw))
    }

    /// The oracle over any store: `a`'s controllers, while `b` (another fetchd on the same
    /// store) and `raw` write, after every merge equal a fresh fetch.
    static func followOtherWriters(seed: UInt64, _ a: ObjectGraph, _ b: ObjectGraph, _ raw: RawClient) throws {
        var rng = SeededRandom(seed: seed)
        let main = try a.context(ObjectGraph.mainContext)
        _ = try a.createContext("edit", parent: ObjectGraph.mainContext)
        for _ in 0..<4 {
            _ = try main.insert(
                "Author", ["name": .string(Library.names[rng.int(0..<6)]), "rank": .integer(Int64(rng.int(0..<10)))])
        }
        let authors = try main.fetch(entity: "Author")
        for _ in 0..<20 { _ = try main.insert("Book", ContextOracleTests.bookValues(&rng, authors: authors)) }
        try main.save()
        a.processPendingChanges()
        let compiler = RequestCompiler(model: Library.model)
        let harnesses = try specs.map { try ContextOracleTests.Harness($0, a, compiler) }
        var cycle = 0
        a.observeChangeSets { changeSet in
            for h in harnesses where h.context.name == changeSet.context {
                let events = h.controller.apply(changeSet)
                #expect(wireOrderProblems(events) == [], "seed \(seed) cycle \(cycle) \(h.spec.name)")
                do { try h.mirror.apply(events) { h.context.snapshot(of: $0) } } catch {
                    Issue.record("seed \(seed) cycle \(cycle) \(h.spec.name): \(error)")
                }
            }
        }
        var merged: [Int64] = []
        var external = 0
        for c in 0..<iterations(default: 150) {
            cycle = c
            switch rng.int(0..<10) {
            case 0..<4:
                try rawWrite(raw, &rng)
            case 4..<7:
                let other = try b.context(ObjectGraph.mainContext)
                for _ in 0..<rng.int(1..<4) { try? ContextOracleTests.mutate(other, &rng) }
                if (try? other.save()) == nil { try other.rollback() }
            default:
                // Own unsaved changes (main or its child) stay on top of what is merged.
                let target = try a.context(rng.chance(0.5) ? "main" : "edit")
                for _ in 0..<rng.int(1..<3) { try? ContextOracleTests.mutate(target, &rng) }
                if rng.chance(0.3) { _ = try? target.save() }
                if rng.chance(0.1) { try? target.rollback() }
                a.processPendingChanges()
            }
            let before = a.store.mergeCursor
            let pending = try a.store.history(after: before).filter { $0.origin != a.store.origin }
            external += pending.count
            try a.mergeExternalChanges()
            #expect(a.store.mergeCursor == (try a.store.currentToken))
            #expect(try !a.hasExternalChanges())
            // Exactly once: each foreign transaction's token is merged in one call only.
            for t in pending {
                #expect(!merged.contains(t.token))
                merged.append(t.token)
            }
            for h in harnesses {
                let fresh = try h.fresh()
                guard h.mirror == fresh else {
                    Issue.record(
                        "seed \(seed) cycle \(cycle) \(h.spec.name): mirror \(h.mirror.sections.map { ($0.name, $0.rows.map(\.id.number)) }) != fresh \(fresh.sections.map { ($0.name, $0.rows.map(\.id.number)) })"
                    )
                    return
                }
            }
        }
        #expect(external > 20)
        // Nothing is merged twice: a merge with nothing new delivers nothing.
        #expect(try a.mergeExternalChanges().isEmpty)
    }
}
