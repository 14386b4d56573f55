import Model
import Predicates
import SQLite
import Store
import TestSupport
import Testing

@testable import Contexts

/// Batch requests, rule by rule: defaults and ids, every problem listed with nothing
/// written, merging under unsaved edits, and the delete rules.
@Suite struct BatchRequestTests {
    @Test func insertTakesDefaultsAndAnswersIdsInRowOrder() throws {
        let (graph, recorder) = try Fixture.graph()
        let main = try graph.context(ObjectGraph.mainContext)
        let group = try main.insert("Group", ["title": .string("g")])
        try main.save()
        _ = recorder.take()
        let ids = try graph.batchInsert(
            "Contact",
            rows: [["name": .string("Ann"), "group": .object(group)], ["name": .string("Bob"), "age": .integer(7)]])
        #expect(ids.map(\.number) == ids.map(\.number).sorted() && ids.count == 2)
        #expect(try graph.store.read(ids[0])?.values["age"] == .integer(0))
        #expect(try main.object(ids[1])?["age"] == .integer(7))
        // The one-to-many side follows: the group lists its new member.
        #expect(try main.object(group)?["members"] == .objects([ids[0]]))
        let sets = recorder.take()
        #expect(sets.map(\.reason) == [.batch])
        #expect(sets.first?.changes.map(\.id) == [ids[0], ids[1], group])
    }

    /// Rows that set a to-many relationship go through staging: both sides stay in step.
    @Test func insertKeepsManyToManyInverses() throws {
        let (graph, recorder) = try Fixture.graph()
        let main = try graph.context(ObjectGraph.mainContext)
        let tag = try main.insert("Tag", ["label": .string("t")])
        try main.save()
        _ = recorder.take()
        let ids = try graph.batchInsert(
            "Contact", rows: [["name": .string("Ann"), "tags": .objects([tag])], ["name": .string("Bob")]])
        #expect(try main.object(tag)?["contacts"] == .objects([ids[0]]))
        #expect(try graph.store.read(tag)?.values["contacts"] == .objects([ids[0]]))
        #expect(recorder.take().map(\.reason) == [.batch])
    }

    @Test func everyProblemIsListedByRowAndKeyAndNothingIsWritten() throws {
        let (graph, recorder) = try Fixture.graph()
        let error = engineError {
            try graph.batchInsert(
                "Contact",
                rows: [
                    ["name": .string("ok")],
                    ["name": .integer(3), "nope": .string("x")],
                    ["age": .integer(1)],
                    ["name": .string("x"), "group": .object(.group(99))],
                ],
                rejected: [.init(row: 4, key: "age", reason: "expected an integer, got string")])
        }
        #expect(error?.kind == .validation)
        let found = batchProblems(error).map { ($0["row"], $0["key"]) }
        #expect(found.count == 5, "\(found)")
        for (row, key) in [(1, "name"), (1, "nope"), (2, "name"), (3, "group"), (4, "age")] {
            #expect(found.contains { $0 == (.int(Int64(row)), .string(key)) }, "row \(row) \(key): \(found)")
        }
        #expect(try graph.store.count(entity: "Contact", filter: nil) == 0)
        #expect(recorder.take().isEmpty)
    }

    /// A required attribute given as null is as missing as one left out.
    @Test func aNullForARequiredAttributeIsAProblem() throws {
        let (graph, _) = try Fixture.graph()
        let error = engineError {
            try graph.batchInsert("Contact", rows: [["name": .string("ok")], ["name": .null, "age": .integer(1)]])
        }
        let found = batchProblems(error)
        #expect(found.count == 1, "\(found)")
        #expect(found.first?["row"] == .int(1))
        #expect(found.first?["key"] == .string("name"))
        #expect(found.first?["reason"] == .string("required value missing"))
        #expect(try graph.store.count(entity: "Contact", filter: nil) == 0)
    }

    /// Rows take turns between key sets (the checker remembers the last row's keys): each
    /// row's problems are its own.
    @Test func rowsWithDifferentKeysAreEachCheckedForTheirOwn() throws {
        let (graph, _) = try Fixture.graph()
        var rows: [Snapshot] = []
        var expected: Set<String> = []
        for i in 0..<30 {
            switch i % 3 {
            case 0: rows.append(["name": .string("x"), "age": .integer(1)])
            case 1:
                rows.append(["nope": .string("x"), "age": .integer(1)])
                expected.formUnion(["\(i) nope", "\(i) name"])
            default:
                rows.append(["name": .integer(3), "age": .integer(1)])
                expected.insert("\(i) name")
            }
        }
        let error = engineError { try graph.batchInsert("Contact", rows: rows) }
        let found = batchProblems(error).map { p -> String in
            guard case .int(let row)? = p["row"], case .string(let key)? = p["key"] else { return "?" }
            return "\(row) \(key)"
        }
        #expect(Set(found) == expected)
        #expect(found.count == expected.count)
    }

    /// A row with as many keys as the entity has, one of them unknown, still leaves a
    /// required one out: both are listed (a row is only taken as complete when every key it
    /// gives is the entity's).
    @Test func anUnknownKeyDoesNotCountTowardsAFullRow() throws {
        let (graph, _) = try Fixture.graph()
        let row: Snapshot = [
            "age": .integer(1), "group": .null, "tags": .objects([]), "notes": .objects([]), "badge": .null,
            "nope": .string("x"),
        ]
        let error = engineError { try graph.batchInsert("Contact", rows: [row]) }
        let keys = batchProblems(error).compactMap { p -> String? in
            if case .string(let k)? = p["key"] { return k } else { return nil }
        }
        #expect(keys == ["name", "nope"])
    }

    /// An unsaved edit keeps its keys and takes the batch's others (a merge's rebase), and a
    /// later save writes both.
    @Test func updateMergesUnderUnsavedEdits() throws {
        let (graph, _) = try Fixture.graph()
        let main = try graph.context(ObjectGraph.mainContext)
        let a = try main.insert("Contact", ["name": .string("Ann"), "age": .integer(30)])
        let b = try main.insert("Contact", ["name": .string("Bob"), "age": .integer(40)])
        try main.save()
        try main.update(a, ["name": .string("Anne")])
        let child = try graph.createContext("child", parent: ObjectGraph.mainContext)
        #expect(try graph.batchUpdate("Contact", filter: nil, values: ["age": .integer(50)]) == 2)
        #expect(try main.object(a)?["name"] == .string("Anne"))
        #expect(try main.object(a)?["age"] == .integer(50))
        #expect(try child.object(b)?["age"] == .integer(50))
        try main.save()
        #expect(try graph.store.read(a)?.values["name"] == .string("Anne"))
        #expect(try graph.store.read(a)?.values["age"] == .integer(50))
        // A required value cannot be cleared: refused, nothing written.
        #expect(
            engineError { try graph.batchUpdate("Contact", filter: nil, values: ["name": .null]) }?.kind == .validation)
        #expect(try graph.store.read(b)?.values["name"] == .string("Bob"))
    }

    @Test func deleteAppliesCascadeNullifyAndDeny() throws {
        let (graph, _) = try Fixture.graph()
        let main = try graph.context(ObjectGraph.mainContext)
        let group = try main.insert("Group", ["title": .string("g")])
        let a = try main.insert("Contact", ["name": .string("Ann"), "group": .object(group)])
        let b = try main.insert("Contact", ["name": .string("Bob"), "group": .object(group)])
        let note = try main.insert("Note", ["text": .string("n"), "contact": .object(a)])
        let badge = try main.insert("Badge", ["code": .string("x"), "owner": .object(b)])
        try main.save()

        // Bob's badge denies; nothing is deleted, Ann included.
        let denied = engineError { try graph.batchDelete("Contact", filter: nil, ids: nil) }
        #expect(denied?.kind == .validation)
        let deniedText = String(describing: denied?.detail("errors"))
        #expect(deniedText.contains(b.description))
        #expect(try graph.store.read(a) != nil && graph.store.read(note) != nil)

        // Unknown ids are listed too.
        let unknown = engineError { try graph.batchDelete("Contact", filter: nil, ids: [a, .contact(77)]) }
        let unknownText = String(describing: unknown?.detail("errors"))
        #expect(unknownText.contains("Contact/77"))
        #expect(try graph.store.read(a) != nil)

        #expect(try graph.batchDelete("Contact", filter: nil, ids: [a]) == 1)
        #expect(try graph.store.read(a) == nil)
        #expect(try graph.store.read(note) == nil) // cascade
        #expect(try main.object(group)?["members"] == .objects([b])) // nullify (the derived side)
        // Badge.owner is noAction: the contact lets go first.
        try main.update(b, ["badge": .null])
        try main.delete(badge)
        try main.save()
        #expect(try graph.batchDelete("Group", filter: nil, ids: nil) == 1)
        #expect(try main.object(b)?["group"] == .null) // nullify of a to-one
    }

    /// A batch takes the write lock before it reads anything: while another writer holds it,
    /// the batch answers `storeBusy` and nothing changes; once free, the same batch goes in.
    @Test func aBatchWaitsForTheWriteLockBeforeReading() throws {
        let dir = TempDir()
        let (graph, recorder) = try Fixture.graph(path: dir.file("busy.sqlite"))
        let main = try graph.context(ObjectGraph.mainContext)
        _ = try main.insert("Contact", ["name": .string("Ann")])
        try main.save()
        _ = recorder.take()
        let other = try SQLiteStore.open(path: dir.file("busy.sqlite"), model: Fixture.model)
        try other.beginWrite(author: "other")
        graph.store.busyTimeout = 50
        for attempt in [
            { () throws in _ = try graph.batchInsert("Contact", rows: [["name": .string("Bob")]]) },
            { () throws in _ = try graph.batchUpdate("Contact", filter: nil, values: ["age": .integer(9)]) },
            { () throws in _ = try graph.batchDelete("Contact", filter: nil, ids: nil) },
        ] {
            #expect(engineError(attempt)?.kind == .storeBusy)
        }
        #expect(recorder.take().isEmpty)
        #expect(!graph.store.isWriting)
        other.rollbackWrite()
        #expect(try graph.batchUpdate("Contact", filter: nil, values: ["age": .integer(9)]) == 1)
        #expect(try main.fetch(entity: "Contact").count == 1)
        #expect(recorder.take().map(\.reason) == [.batch])
    }

    /// The set-based update writes `OR FAIL` (no statement journal): a statement that fails
    /// part way keeps its first rows until the batch's transaction is rolled back. A unique
    /// index a plain client added makes the second row fail: nothing of the batch stays, in
    /// the rows, the history or any context.
    @Test func anUpdateFailingPartWayLeavesNothing() throws {
        let dir = TempDir()
        let file = dir.file("unique.sqlite")
        let (graph, recorder) = try Fixture.graph(path: file)
        let main = try graph.context(ObjectGraph.mainContext)
        let notes = try ["a", "b", "c"].map { try main.insert("Note", ["text": .string($0)]) }
        try main.save()
        _ = recorder.take()
        let other = try Connection(path: file)
        try other.execute("PRAGMA busy_timeout=2000; CREATE UNIQUE INDEX note_text ON \"Note\"(text)")
        let historyRows = {
            let s = try other.prepare("SELECT count(*) FROM \"_fetchd_history\"")
            _ = try s.step()
            return s.int64(0)
        }
        let before = try historyRows()
        let error = engineError { try graph.batchUpdate("Note", filter: nil, values: ["text": .string("same")]) }
        #expect(error?.kind == .storeError)
        #expect(try notes.map { try graph.store.read($0)?.values["text"] } == ["a", "b", "c"].map { .string($0) })
        #expect(try historyRows() == before)
        #expect(recorder.take().isEmpty)
        #expect(!graph.store.isWriting)
        #expect(try main.object(notes[0])?["text"] == .string("a"))
    }

    /// A predicate batch whose rows an index hands out in another order than their numbers
    /// (read by number from the index's list, `readMatching`) changes the rows the predicate
    /// matched, even when it reads the column the update sets, and records what saves of the
    /// same changes record, in ascending numbers. A row that keeps its values is not written.
    @Test func aPredicateBatchRecordsWhatSavesRecordInNumberOrder() throws {
        let dir = TempDir()
        let texts = ["f", "e", "d", "c", "b", "a", "z"]
        // The same notes in two files: one changed by batches, one by saves.
        var graphs: [(ObjectGraph, Connection, [ObjectID])] = []
        for name in ["batch", "save"] {
            let file = dir.file("\(name).sqlite")
            let (graph, _) = try Fixture.graph(path: file)
            let main = try graph.context(ObjectGraph.mainContext)
            let notes = try texts.map { try main.insert("Note", ["text": .string($0)]) }
            try main.save()
            let raw = try Connection(path: file)
            // By text, the matching rows come out in the reverse of their numbers.
            try raw.execute("PRAGMA busy_timeout=2000; CREATE INDEX note_text ON \"Note\"(text)")
            graphs.append((graph, raw, notes))
        }
        let compiler = RequestCompiler(model: Fixture.model)
        let below = { (text: String) in
            try compiler.compile(FetchRequest(entity: "Note", predicate: "text >= 'a' AND text < '\(text)'")).filter
        }
        /// The last transaction's history rows, in the order they were recorded.
        func lastHistory(_ raw: Connection) throws -> [String] {
            let s = try raw.prepare(
                "SELECT pk, op, keys, version, old FROM \"_fetchd_history\" WHERE txn = "
                    + "(SELECT max(txn) FROM \"_fetchd_history\") ORDER BY seq")
            var out: [String] = []
            // pk|op|keys|version|old, NULL as "-".
            while try s.step() {
                out.append((Int32(0)..<5).map { s.isNull($0) ? "-" : s.text($0) }.joined(separator: "|"))
            }
            return out
        }
        let (batch, batchRaw, notes) = graphs[0]
        let (saved, savedRaw, _) = graphs[1]
        let main = try saved.context(ObjectGraph.mainContext)
        // The index hands the matches out in another order: read by number from its list.
        var byList = 0
        try (batch.store as! SQLiteStore).connection.observeStatements { sql in
            if sql.contains(" IN (SELECT t.") { byList += 1 }
        }
        // Every match changes, and leaves the predicate.
        #expect(try batch.batchUpdate("Note", filter: below("d"), values: ["text": .string("y")]) == 3)
        #expect(byList == 1)
        for id in notes[3...5] { try main.update(id, ["text": .string("y")]) }
        try main.save()
        let updated = try lastHistory(batchRaw)
        #expect(updated.map { String($0.prefix(2)) } == ["4|", "5|", "6|"])
        #expect(updated == (try lastHistory(savedRaw)).sorted())
        let textsIn = { (g: ObjectGraph) in try notes.map { try g.store.read($0)?.values["text"] } }
        #expect(try textsIn(batch) == textsIn(saved))
        #expect(try notes.map { try batch.store.version(of: $0) } == [1, 1, 1, 2, 2, 2, 1])
        // "z" keeps its value.
        #expect(try batch.batchUpdate("Note", filter: below("zz"), values: ["text": .string("z")]) == 7)
        for id in notes.dropLast() { try main.update(id, ["text": .string("z")]) }
        try main.save()
        #expect(try lastHistory(batchRaw) == (try lastHistory(savedRaw)).sorted())
        #expect(try lastHistory(batchRaw).count == 6)
        #expect(try batch.batchDelete("Note", filter: below("zz"), ids: nil) == 7)
        for id in notes { try main.delete(id) }
        try main.save()
        let deleted = try lastHistory(batchRaw)
        #expect(deleted.map { String($0.prefix(2)) } == (1...7).map { "\($0)|" })
        #expect(deleted == (try lastHistory(savedRaw)).sorted())
    }

    /// `ids` with a predicate: those of the ids the predicate matches, and only they count.
    @Test func idsWithAPredicateDeleteTheMatchingOnes() throws {
        let (graph, _) = try Fixture.graph()
        let main = try graph.context(ObjectGraph.mainContext)
        let a = try main.insert("Contact", ["name": .string("Ann"), "age": .integer(30)])
        let b = try main.insert("Contact", ["name": .string("Bob"), "age": .integer(50)])
        let c = try main.insert("Contact", ["name": .string("Cid"), "age": .integer(60)])
        try main.save()
        let older = try RequestCompiler(model: Fixture.model).compile(
            FetchRequest(entity: "Contact", predicate: "age > 40")
        ).filter
        #expect(try graph.batchDelete("Contact", filter: older, ids: [a, b]) == 1)
        #expect(try graph.store.read(a) != nil && graph.store.read(b) == nil && graph.store.read(c) != nil)
    }
}
