import Contexts
import Model
import Predicates
import SQLite
import Store
import TestSupport
import Testing

@testable import Controllers

/// Pruning never drops history a live reader has not merged; a reader that lost some anyway
/// (stale cursor, forced purge) refetches every controller, and its mirrors equal fresh fetches.
@Suite struct HistoryPruningTests {
    /// A reader engine with the oracle's controllers, a writer engine and a plain connection
    /// on one file.
    final class Setup {
        let dir = TempDir()
        let reader: ObjectGraph
        let writer: ObjectGraph
        let raw: Connection
        var harnesses: [ContextOracleTests.Harness] = []
        var rng = SeededRandom(seed: 7)

        init() throws {
            let file = dir.file("shared.sqlite")
            reader = ObjectGraph(
                store: try SQLiteStore.open(path: file, model: Library.model) { try SQLFunctions.register(on: $0) })
            writer = ObjectGraph(
                store: try SQLiteStore.open(path: file, model: Library.model) { try SQLFunctions.register(on: $0) })
            raw = try Connection(path: file)
            try raw.execute("PRAGMA busy_timeout=2000; PRAGMA foreign_keys=ON")
            let main = try reader.context(ObjectGraph.mainContext)
            _ = try reader.createContext("edit", parent: ObjectGraph.mainContext)
            for i in 0..<3 { _ = try main.insert("Author", ["name": .string(Library.names[i]), "rank": .integer(1)]) }
            let authors = try main.fetch(entity: "Author")
            for _ in 0..<15 { _ = try main.insert("Book", ContextOracleTests.bookValues(&rng, authors: authors)) }
            try main.save()
            reader.processPendingChanges()
            let compiler = RequestCompiler(model: Library.model)
            harnesses = try ExternalMergeTests.specs.map { try ContextOracleTests.Harness($0, reader, compiler) }
            reader.observeChangeSets { [unowned self] changeSet in
                for h in harnesses where h.context.name == changeSet.context {
                    let events = h.controller.apply(changeSet)
                    #expect(wireOrderProblems(events) == [])
                    do { try h.mirror.apply(events) { h.context.snapshot(of: $0) } } catch {
                        Issue.record("\(h.spec.name): \(error)")
                    }
                }
            }
            // Record the reader's cursor now (it merged everything so far).
            _ = try reader.mergeExternalTransactions()
            reader.store.retention.cursorInterval = 0
            reader.store.recordCursorIfDue()
        }

        /// Some writes by the other engine and by the plain client.
        func write(_ n: Int) throws {
            let other = try writer.context(ObjectGraph.mainContext)
            for _ in 0..<n {
                if rng.chance(0.5) {
                    try ExternalMergeTests.rawWrite(.sqlite(raw), &rng)
                } else {
                    for _ in 0..<rng.int(1..<3) { try? ContextOracleTests.mutate(other, &rng) }
                    if (try? other.save()) == nil { try other.rollback() }
                }
            }
        }

        func historyRows() throws -> Int64 {
            let s = try raw.prepareUncached("SELECT count(*) FROM _fetchd_history")
            _ = try s.step()
            return s.int64(0)
        }

        func expectMirrorsFresh(_ label: String) throws {
            for h in harnesses {
                let fresh = try h.fresh()
                #expect(
                    h.mirror == fresh,
                    "\(label) \(h.spec.name): \(h.mirror.sections.map { $0.rows.map(\.id.number) }) != \(fresh.sections.map { $0.rows.map(\.id.number) })"
                )
            }
        }

        /// The writer prunes as hard as its retention allows, in its next save.
        func pruneHard(staleAfter: Double = 3_600) throws {
            writer.store.retention.maxRows = 1
            writer.store.retention.maxAge = 0
            writer.store.retention.pruneInterval = 0
            writer.store.retention.staleAfter = staleAfter
            writer.store.retention.cursorInterval = 0
            // The writer merges too (a watching fetchd does): its own cursor holds nothing back.
            _ = try writer.mergeExternalTransactions()
            let other = try writer.context(ObjectGraph.mainContext)
            _ = try other.insert("Author", ["name": .string("Pruner"), "rank": .integer(2)])
            try other.save()
        }
    }

    @Test func automaticPruningKeepsWhatALiveReaderHasNotMerged() throws {
        let s = try Setup()
        let start = s.reader.store.mergeCursor
        try s.write(30)
        try s.pruneHard()
        // Everything after the reader's cursor is still there: no gap, every change merged.
        #expect(try !s.reader.store.historyGap(after: start))
        let merged = try s.reader.mergeExternalTransactions()
        #expect(!merged.gap)
        #expect(!merged.transactions.isEmpty)
        try s.expectMirrorsFresh("after merge")
        // Once the reader's cursor moved on, the next pruning takes the rows it has read.
        s.reader.store.recordCursorIfDue()
        let before = try s.historyRows()
        try s.pruneHard()
        let after = try s.historyRows()
        #expect(after < before)
        #expect(try s.writer.store.oldestToken ?? 0 > start + 1)
        #expect(try !s.reader.store.historyGap(after: s.reader.store.mergeCursor))
    }

    @Test func aStaleCursorHoldsNothingBackAndItsReaderRefetches() throws {
        let s = try Setup()
        try s.write(30)
        // Every cursor counts as stale for this pruning: only the newest row stays.
        try s.pruneHard(staleAfter: -1)
        #expect(try s.historyRows() == 1)
        #expect(try s.reader.store.historyGap(after: s.reader.store.mergeCursor))
        var sets: [ChangeSet] = []
        // A second observer, after the harnesses' one.
        s.reader.observeChangeSets { sets.append($0) }
        let merged = try s.reader.mergeExternalTransactions()
        #expect(merged.gap)
        #expect(s.reader.store.mergeCursor == (try s.reader.store.currentToken))
        // Both contexts (the root and its child) refetched.
        #expect(Set(sets.filter(\.refetch).map(\.context)) == ["main", "edit"])
        try s.expectMirrorsFresh("after gap")
        // Later commits merge as usual again.
        try s.write(5)
        let next = try s.reader.mergeExternalTransactions()
        #expect(!next.gap)
        try s.expectMirrorsFresh("after gap, then writes")
    }

    @Test func aRefetchAfterAGapKeepsTheReadersUnsavedInserts() throws {
        let s = try Setup()
        let main = try s.reader.context("main")
        let mine = try main.insert("Author", ["name": .string("Unsaved"), "rank": .integer(3)])
        try s.write(30)
        try s.pruneHard(staleAfter: -1)
        let merged = try s.reader.mergeExternalTransactions()
        #expect(merged.gap)
        // The rebase after a gap used to drop pending inserts (the store has no row for them).
        #expect(try main.object(mine)?["name"] == .string("Unsaved"))
        #expect(main.changedObjects.inserted == [mine])
    }

    @Test func purgeRespectsLiveCursorsUnlessForced() throws {
        let s = try Setup()
        let cursor = s.reader.store.mergeCursor
        try s.write(20)
        let newest = try s.writer.store.currentToken
        _ = try s.writer.mergeExternalTransactions()
        _ = try s.writer.store.purgeHistory(before: newest)
        // The reader's rows stay (the writer's own cursor is older still or equal).
        #expect(try !s.reader.store.historyGap(after: cursor))
        let deleted = try s.writer.store.purgeHistory(before: newest, force: true)
        #expect(deleted > 0)
        #expect(try s.reader.store.historyGap(after: cursor))
        let merged = try s.reader.mergeExternalTransactions()
        #expect(merged.gap)
        try s.expectMirrorsFresh("after forced purge")
    }
}
