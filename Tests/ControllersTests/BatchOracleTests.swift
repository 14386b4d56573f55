import Contexts
import Model
import Predicates
import Store
import TestSupport
import Testing

@testable import Controllers

/// Batch requests against live controllers: random batch inserts, updates and deletes (some
/// invalid) mixed with unsaved edits in a root, its child and a sibling root. Every merging
/// root takes each batch as one cycle (reason `batch`); after every step each controller's
/// mirror must equal a fresh fetch, and a refused batch changes nothing anywhere.
@Suite struct BatchOracleTests {
    static func predicate(_ rng: inout SeededRandom) -> String? {
        [nil, "year == 2001", "price > 15", "flag == YES AND year >= 2002", "author.rank < 5"][rng.int(0..<5)]
    }

    @Test(arguments: [UInt64(41), 42, 43])
    func batchesReachEveryControllerAsOneCycle(seed: UInt64) throws {
        try Self.batchCycles(
            seed: seed, store: try SQLiteStore.open(model: Library.model) { try SQLFunctions.register(on: $0) })
    }

    /// Every change set applied to the controllers of its context and to their mirrors
    /// (`also` sees it first); `label` says where a failure happened.
    static func mirrorEveryCycle(
        _ graph: ObjectGraph, _ harnesses: [ContextOracleTests.Harness], _ label: @escaping () -> String,
        also: @escaping (ChangeSet) -> Void = { _ in }
    ) {
        graph.observeChangeSets { changeSet in
            also(changeSet)
            for h in harnesses where h.context.name == changeSet.context {
                let events = h.controller.apply(changeSet)
                #expect(wireOrderProblems(events) == [], "\(label()) \(h.spec.name)")
                do { try h.mirror.apply(events) { h.context.snapshot(of: $0) } } catch {
                    Issue.record("\(label()) \(h.spec.name): \(error)")
                }
            }
        }
    }

    /// A few random unsaved edits in one of the three contexts, taken in as a cycle.
    static func unsavedEdits(_ graph: ObjectGraph, _ rng: inout SeededRandom) throws {
        let target = try graph.context(["main", "edit", "other"][rng.int(0..<3)])
        for _ in 0..<rng.int(1..<4) { try? ContextOracleTests.mutate(target, &rng) }
        graph.processPendingChanges()
    }

    /// Whether every mirror equals a fresh fetch; the first that does not is recorded.
    static func mirrorsAreFresh(_ harnesses: [ContextOracleTests.Harness], _ label: String) throws -> Bool {
        for h in harnesses {
            let fresh = try h.fresh()
            guard h.mirror == fresh else {
                let ids = { (m: Mirror) in m.sections.map { ($0.name, $0.rows.map(\.id.number)) } }
                Issue.record("\(label) \(h.spec.name): mirror \(ids(h.mirror)) != fresh \(ids(fresh))")
                return false
            }
        }
        return true
    }

    /// The oracle over any (empty) store.
    static func batchCycles(seed: UInt64, store: any Store) throws {
        var rng = SeededRandom(seed: seed)
        let graph = ObjectGraph(store: store)
        let main = try graph.context(ObjectGraph.mainContext)
        _ = try graph.createContext("edit", parent: ObjectGraph.mainContext)
        let other = try graph.createContext("other", mergePolicy: .objectTrump)
        for _ in 0..<5 {
            _ = try main.insert(
                "Author", ["name": .string(Library.names[rng.int(0..<6)]), "rank": .integer(Int64(rng.int(0..<10)))])
        }
        let authors = try main.fetch(entity: "Author")
        for _ in 0..<30 { _ = try main.insert("Book", ContextOracleTests.bookValues(&rng, authors: authors)) }
        try main.save()
        graph.processPendingChanges()
        let compiler = RequestCompiler(model: Library.model)
        let harnesses = try ContextOracleTests.specs.map { try ContextOracleTests.Harness($0, graph, compiler) }
        var step = 0
        var batchSets: [String: Int] = [:]
        Self.mirrorEveryCycle(
            graph, harnesses, { "seed \(seed) step \(step)" },
            also: { changeSet in
                if changeSet.reason == .batch { batchSets[changeSet.context, default: 0] += 1 }
            })
        var stats = (inserted: 0, updated: 0, deleted: 0, refused: 0)
        for s in 0..<iterations(default: 120) {
            step = s
            // Unsaved edits the batches must merge under.
            if rng.chance(0.5) { try Self.unsavedEdits(graph, &rng) }
            batchSets = [:]
            let stored = try store.count(entity: "Book", filter: nil)
            let authors = try other.fetch(entity: "Author").filter { try store.read($0) != nil }
            do throws(EngineError) {
                switch rng.int(0..<10) {
                case 0..<4:
                    var rows = (0..<rng.int(1..<6)).map { _ in ContextOracleTests.bookValues(&rng, authors: authors) }
                    if rng.chance(0.2) { rows[rng.int(0..<rows.count)]["year"] = .string("soon") }
                    if rng.chance(0.1) { rows[0]["author"] = .object(ObjectID(entity: "Author", number: 9999)) }
                    if rows.count > 1, rng.chance(0.3) {
                        // In parts: the first held, the last writing them all as one cycle.
                        let cut = rng.int(1..<rows.count)
                        try graph.holdInsertPart("Book", rows: Array(rows[..<cut]))
                        stats.inserted += try graph.batchInsert("Book", rows: Array(rows[cut...])).count
                    } else {
                        stats.inserted += try graph.batchInsert("Book", rows: rows).count
                    }
                    #expect(batchSets["main"] == 1 && batchSets["other"] == 1, "seed \(seed) step \(s): \(batchSets)")
                case 4..<7:
                    let r = ContextOracleTests.bookValues(&rng, authors: authors)
                    let key = ["title", "price", "year", "flag", "note", "author"][rng.int(0..<6)]
                    var filter: (any ObjectFilter)?
                    if let text = Self.predicate(&rng) {
                        filter = try compiler.compile(FetchRequest(entity: "Book", predicate: text)).filter
                    }
                    stats.updated += try graph.batchUpdate("Book", filter: filter, values: [key: r[key]!])
                case 7..<8 where rng.chance(0.5):
                    // Each object its own values: books (own row, a reference), or authors
                    // (a to-many side: through the transient context).
                    if rng.chance(0.5) {
                        var books: [ObjectID] = []
                        for id in try other.fetch(entity: "Book") where try store.read(id) != nil { books.append(id) }
                        var picked = Set<ObjectID>()
                        for _ in 0..<rng.int(1..<8) where !books.isEmpty {
                            picked.insert(books[rng.int(0..<books.count)])
                        }
                        stats.updated += try graph.batchUpdate(
                            "Book",
                            objects: picked.map { id in
                                let key = ["title", "price", "year", "flag", "note", "author"][rng.int(0..<6)]
                                return (id, [key: ContextOracleTests.bookValues(&rng, authors: authors)[key]!])
                            })
                    } else {
                        stats.updated += try graph.batchUpdate(
                            "Author",
                            objects: authors.map { ($0, ["rank": .integer(Int64(rng.int(0..<10)))]) })
                    }
                case 7..<9:
                    let text = rng.chance(0.7) ? "price > 25 OR year == \(2000 + rng.int(0..<5))" : "note == 'n1'"
                    let filter = try compiler.compile(FetchRequest(entity: "Book", predicate: text)).filter
                    stats.deleted += try graph.batchDelete("Book", filter: filter, ids: nil)
                default:
                    // Authors: books are nullified.
                    let ids = authors.isEmpty ? [] : [authors[rng.int(0..<authors.count)]]
                    stats.deleted += try graph.batchDelete("Author", filter: nil, ids: ids)
                }
                for (name, n) in batchSets { #expect(n == 1, "seed \(seed) step \(s): \(name) took \(n) cycles") }
                #expect(batchSets["other"] == nil || other.mergesChangesFromParent)
            } catch {
                #expect(error.kind == .validation, "seed \(seed) step \(s): \(error)")
                #expect(batchSets.isEmpty, "a refused batch delivered \(batchSets)")
                #expect(try store.count(entity: "Book", filter: nil) == stored)
                stats.refused += 1
            }
            // Written or refused, an insert in parts leaves nothing held.
            #expect(graph.heldInsertCount("Book") == 0, "seed \(seed) step \(s)")
            graph.processPendingChanges()
            guard try Self.mirrorsAreFresh(harnesses, "seed \(seed) step \(s)") else { return }
        }
        #expect(stats.inserted > 20 && stats.updated > 20 && stats.deleted > 5 && stats.refused > 2, "\(stats)")
    }

    /// Batches over hundreds of rows, most of them setting a key no controller here reads:
    /// the controllers find the rows by one walk of their trees, and an update of an unread
    /// key leaves the tree as it is (ChangeCycle+InPlace.swift). The mirrors must still equal
    /// a fresh fetch after every step, with unsaved edits merged under the batches.
    @Test(arguments: [UInt64(46), 47, 48])
    func bigBatchesKeepEveryControllerExact(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        let store = try SQLiteStore.open(model: Library.model) { try SQLFunctions.register(on: $0) }
        let graph = ObjectGraph(store: store)
        let main = try graph.context(ObjectGraph.mainContext)
        _ = try graph.createContext("edit", parent: ObjectGraph.mainContext)
        _ = try graph.createContext("other", mergePolicy: .objectTrump)
        for _ in 0..<5 {
            _ = try main.insert(
                "Author", ["name": .string(Library.names[rng.int(0..<6)]), "rank": .integer(Int64(rng.int(0..<10)))])
        }
        try main.save()
        let authors = try main.fetch(entity: "Author")
        try graph.batchInsert(
            "Book", rows: (0..<400).map { _ in ContextOracleTests.bookValues(&rng, authors: authors) })
        graph.processPendingChanges()
        let compiler = RequestCompiler(model: Library.model)
        let harnesses = try ContextOracleTests.specs.map { try ContextOracleTests.Harness($0, graph, compiler) }
        // The incremental path (with its walks) on one seed, the size's own choice on the others.
        if seed == 46 { for h in harnesses { h.controller.rebuildOverride = false } }
        var step = 0
        Self.mirrorEveryCycle(graph, harnesses, { "seed \(seed) step \(step)" })
        for s in 0..<iterations(default: 40) {
            step = s
            if rng.chance(0.4) { try Self.unsavedEdits(graph, &rng) }
            let text = [nil, nil, "year == 2001", "price > 15", "flag == YES"][rng.int(0..<5)]
            let filter = try text.map { try compiler.compile(FetchRequest(entity: "Book", predicate: $0)).filter }
            switch rng.int(0..<10) {
            case 0..<6:
                // Mostly the key nothing sorts, sections or filters by.
                let key = rng.chance(0.6) ? "note" : ["title", "price", "year", "flag", "author"][rng.int(0..<5)]
                let values = ContextOracleTests.bookValues(&rng, authors: authors)
                try graph.batchUpdate("Book", filter: filter, values: [key: values[key]!])
            case 6..<8:
                let rows = (0..<rng.int(50..<150)).map { _ in ContextOracleTests.bookValues(&rng, authors: authors) }
                try graph.batchInsert("Book", rows: rows)
            default:
                let cut = "price > \(20 + rng.int(0..<10)) OR note == 'n\(rng.int(0..<3))'"
                let f = try compiler.compile(FetchRequest(entity: "Book", predicate: cut)).filter
                try graph.batchDelete("Book", filter: f, ids: nil)
            }
            graph.processPendingChanges()
            guard try Self.mirrorsAreFresh(harnesses, "seed \(seed) step \(s)") else { return }
        }
    }

    /// Another process's batches reach this one through the history: each batch's rows are
    /// recorded (old values too) as a save records them, so a merge of external changes
    /// brings every controller here to a fresh fetch's answer.
    @Test(arguments: [UInt64(44), 45])
    func anotherProcesssBatchesMergeExactly(seed: UInt64) throws {
        let dir = TempDir()
        let file = dir.file("shared.sqlite")
        try Self.otherProcessBatches(seed: seed) {
            try SQLiteStore.open(path: file, model: Library.model) { try SQLFunctions.register(on: $0) }
        }
    }

    /// The oracle over any shared store: `open` opens one more store on it.
    static func otherProcessBatches(seed: UInt64, open: () throws -> any Store) throws {
        var rng = SeededRandom(seed: seed)
        let here = ObjectGraph(store: try open())
        let there = ObjectGraph(store: try open())
        let main = try here.context(ObjectGraph.mainContext)
        for _ in 0..<4 {
            _ = try main.insert(
                "Author", ["name": .string(Library.names[rng.int(0..<6)]), "rank": .integer(Int64(rng.int(0..<10)))])
        }
        let authors = try main.fetch(entity: "Author")
        for _ in 0..<30 { _ = try main.insert("Book", ContextOracleTests.bookValues(&rng, authors: authors)) }
        try main.save()
        here.processPendingChanges()
        let compiler = RequestCompiler(model: Library.model)
        let harnesses = try ContextOracleTests.specs.filter { $0.context == "main" }.map {
            try ContextOracleTests.Harness($0, here, compiler)
        }
        here.observeChangeSets { changeSet in
            for h in harnesses where h.context.name == changeSet.context {
                do { try h.mirror.apply(h.controller.apply(changeSet)) { h.context.snapshot(of: $0) } } catch {
                    Issue.record("seed \(seed) \(h.spec.name): \(error)")
                }
            }
        }
        let thereCompiler = RequestCompiler(model: Library.model)
        for step in 0..<iterations(default: 40) {
            if rng.chance(0.4) {
                for _ in 0..<rng.int(1..<3) { try? ContextOracleTests.mutate(main, &rng) }
                here.processPendingChanges()
            }
            switch rng.int(0..<3) {
            case 0:
                let rows = (0..<rng.int(1..<5)).map { _ in ContextOracleTests.bookValues(&rng, authors: authors) }
                try there.batchInsert("Book", rows: rows)
            case 1:
                let key = ["title", "price", "year", "flag", "author"][rng.int(0..<5)]
                let text = ["year == 2001", "price > 15", "flag == YES"][rng.int(0..<3)]
                try there.batchUpdate(
                    "Book", filter: try thereCompiler.compile(FetchRequest(entity: "Book", predicate: text)).filter,
                    values: [key: ContextOracleTests.bookValues(&rng, authors: authors)[key]!])
            default:
                let text = "price > 27 OR year == \(2000 + rng.int(0..<5))"
                try there.batchDelete(
                    "Book", filter: try thereCompiler.compile(FetchRequest(entity: "Book", predicate: text)).filter,
                    ids: nil)
            }
            try here.mergeExternalChanges()
            guard try Self.mirrorsAreFresh(harnesses, "seed \(seed) step \(step)") else { return }
        }
    }
}
