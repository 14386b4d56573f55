import Contexts
import Model
import Predicates
import Store
import TestSupport
import Testing

@testable import Controllers

/// Batches on an entity that keeps everything in its own row: a context with nothing of it
/// unsaved notes the changed rows as one run (`Context.noteChanged(before:after:entity:)`), one with
/// unsaved edits of it notes each row as it shows it. Contexts move between the two (edits
/// come, saves and rollbacks clear them); after every step each controller's mirror must
/// equal a fresh fetch.
@Suite struct BatchRunOracleTests {
    static let specs: [ContextOracleTests.Spec] = [
        .init(
            name: "byPrice", context: "main",
            request: FetchRequest(entity: "Memo", sortDescriptors: [.init(key: "price")])),
        .init(
            name: "yearSections", context: "main",
            request: FetchRequest(
                entity: "Memo", predicate: "price > 10",
                sortDescriptors: [.init(key: "title", ascending: false, comparator: .caseInsensitiveCompare)]),
            section: "year"),
        .init(
            name: "window", context: "edit",
            request: FetchRequest(
                entity: "Memo", sortDescriptors: [.init(key: "year"), .init(key: "price", ascending: false)],
                fetchLimit: 6, fetchOffset: 3)),
        .init(
            name: "flagged", context: "other",
            request: FetchRequest(
                entity: "Memo", predicate: "flag == YES", sortDescriptors: [.init(key: "note"), .init(key: "title")])),
    ]

    static func values(_ rng: inout SeededRandom) -> Snapshot {
        var v = ContextOracleTests.bookValues(&rng, authors: [])
        v["author"] = nil
        return v
    }

    /// An unsaved edit of a memo, a save or a rollback in one of the three contexts.
    static func edit(_ graph: ObjectGraph, _ rng: inout SeededRandom) throws {
        let context = try graph.context(["main", "edit", "other"][rng.int(0..<3)])
        let memos = try context.fetch(entity: "Memo")
        switch rng.int(0..<10) {
        case 0..<2: _ = try context.insert("Memo", values(&rng))
        case 2..<3 where !memos.isEmpty: try context.delete(memos[rng.int(0..<memos.count)])
        case 3..<7 where !memos.isEmpty:
            let key = ["title", "price", "year", "flag", "note"][rng.int(0..<5)]
            try context.update(memos[rng.int(0..<memos.count)], [key: values(&rng)[key]!])
        case 7..<8: _ = try? context.save()
        default: try context.rollback()
        }
        graph.processPendingChanges()
    }

    @Test(arguments: [UInt64(61), 62, 63])
    func runsOfChangedRowsKeepEveryControllerExact(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        let graph = ObjectGraph(store: try SQLiteStore.open(model: Library.model) { try SQLFunctions.register(on: $0) })
        _ = try graph.context(ObjectGraph.mainContext)
        _ = try graph.createContext("edit", parent: ObjectGraph.mainContext)
        _ = try graph.createContext("other", mergePolicy: .objectTrump)
        try graph.batchInsert("Memo", rows: (0..<300).map { _ in Self.values(&rng) })
        graph.processPendingChanges()
        let compiler = RequestCompiler(model: Library.model)
        let harnesses = try Self.specs.map { try ContextOracleTests.Harness($0, graph, compiler) }
        if seed == 61 { for h in harnesses { h.controller.rebuildOverride = false } }
        var step = 0
        var counts = (cycles: 0, edited: 0)
        BatchOracleTests.mirrorEveryCycle(
            graph, harnesses, { "seed \(seed) step \(step)" },
            also: { if $0.reason == .batch { counts.cycles += 1 } })
        for s in 0..<iterations(default: 60) {
            step = s
            if rng.chance(0.3) {
                // Nothing unsaved anywhere: every context takes the batch as a run.
                for name in ["edit", "main", "other"] { try graph.context(name).rollback() }
                graph.processPendingChanges()
            } else if rng.chance(0.5) {
                for _ in 0..<rng.int(1..<4) { try Self.edit(graph, &rng) }
            }
            if graph.contexts.contains(where: \.hasChanges) { counts.edited += 1 }
            let text = [nil, "year == 2001", "price > 15", "flag == YES"][rng.int(0..<4)]
            let filter = try text.map { try compiler.compile(FetchRequest(entity: "Memo", predicate: $0)).filter }
            switch rng.int(0..<10) {
            case 0..<6:
                let key = rng.chance(0.5) ? "note" : ["title", "price", "year", "flag"][rng.int(0..<4)]
                try graph.batchUpdate("Memo", filter: filter, values: [key: Self.values(&rng)[key]!])
            case 6..<7:
                try graph.batchInsert("Memo", rows: (0..<rng.int(20..<80)).map { _ in Self.values(&rng) })
            case 7..<8:
                // Each object its own values (a few set the value they hold).
                var saved: [ObjectID] = []
                for id in try graph.context("other").fetch(entity: "Memo") where try graph.store.read(id) != nil {
                    saved.append(id)
                }
                var picked = Set<ObjectID>()
                for _ in 0..<rng.int(1..<120) where !saved.isEmpty { picked.insert(saved[rng.int(0..<saved.count)]) }
                let objects = picked.map { id -> (ObjectID, Snapshot) in
                    let key = ["title", "price", "year", "flag", "note"][rng.int(0..<5)]
                    return (id, [key: Self.values(&rng)[key]!])
                }
                #expect(try graph.batchUpdate("Memo", objects: objects) == objects.count)
            default:
                let cut = "price > \(22 + rng.int(0..<8)) OR note == 'n\(rng.int(0..<3))'"
                let f = try compiler.compile(FetchRequest(entity: "Memo", predicate: cut)).filter
                try graph.batchDelete("Memo", filter: f, ids: nil)
            }
            graph.processPendingChanges()
            guard try BatchOracleTests.mirrorsAreFresh(harnesses, "seed \(seed) step \(s)") else { return }
        }
        // Both ways of noting happened: steps with and without unsaved edits somewhere.
        #expect(counts.cycles > 40 && counts.edited > 5 && counts.edited < iterations(default: 60) - 5, "\(counts)")
    }
}
