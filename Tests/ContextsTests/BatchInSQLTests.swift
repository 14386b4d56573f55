import Model
import Predicates
import SQLite
import Store
import TestSupport
import Testing

@testable import Contexts

/// Predicate batches that nothing needs noted run as SQL alone (ObjectGraph+BatchInSQL.swift).
/// Run on two copies of one store, once that way and once noted row by row, they must
/// answer the same counts and leave the same rows, history and transactions; anything that
/// uses the rows' values (an observer that does not say otherwise, unsaved changes or undo
/// entries of the entity) keeps the noted path.
@Suite struct BatchInSQLTests {
    static let model = ObjectModel(entities: [
        Entity(
            name: "Msg",
            attributes: [
                Attribute(name: "ts", type: .integer, indexed: true), Attribute(name: "body", type: .string),
                Attribute(name: "flag", type: .boolean), Attribute(name: "score", type: .double, optional: true),
            ],
            relationships: [Relationship(name: "team", destination: "Team", toMany: false, inverse: "msgs")]),
        Entity(
            name: "Team", attributes: [Attribute(name: "title", type: .string)],
            relationships: [Relationship(name: "msgs", destination: "Msg", toMany: true, inverse: "team")]),
    ])

    /// Hears change sets but needs no batch noted: it hears one only when the batch was noted.
    /// A graph over a fresh store with a `Probe` that hears every change set and needs no
    /// batch's rows; the directory lives as long as the caller keeps it.
    static func probedGraph() throws -> (TempDir, ObjectGraph, Probe) {
        let dir = TempDir()
        try makeStore(dir.file("s.sqlite"))
        let graph = ObjectGraph(store: try open(dir.file("s.sqlite")))
        let probe = Probe()
        graph.addObserver(probe)
        return (dir, graph, probe)
    }

    final class Probe: GraphObserver {
        var sets: [ChangeSet] = []
        func graph(_ graph: ObjectGraph, didChange changeSet: ChangeSet) { sets.append(changeSet) }
        func graph(_ graph: ObjectGraph, needsBatchValuesOf entity: String) -> Bool { false }
    }

    enum Op {
        case update(String?, Snapshot)
        case delete(String?)
    }

    /// Updates of every kind of column, rows already holding the value (counted, not
    /// written), the filter's own column, an index range (rows chosen by number first),
    /// then deletes.
    static let ops: [Op] = [
        .update("ts >= 10 AND ts < 60", ["body": .string("x")]),
        .update("body == 'x'", ["flag": .bool(true)]),
        .update("flag == YES", ["score": .double(1.5), "body": .string("x")]),
        .update("ts >= 60 AND ts < 70", ["ts": .integer(5)]),
        .update("ts < 30", ["team": .object(ObjectID(entity: "Team", number: 2))]),
        .update(nil, ["team": .null]),
        .update("ts >= 10 AND ts < 60", ["body": .string("x")]),
        .update("ts > 1000", ["body": .string("none")]),
        .delete("ts >= 80 AND ts < 90"),
        .delete("flag == YES AND score == 1.5"),
        .delete(nil),
    ]

    /// A store of 100 messages, some written by a plain client with a boolean of 2 and a
    /// reference stored as text (read back as true and as no team).
    static func makeStore(_ path: String) throws {
        let graph = ObjectGraph(store: try open(path))
        let teams = try graph.batchInsert("Team", rows: [["title": .string("a")], ["title": .string("b")]])
        _ = try graph.batchInsert(
            "Msg",
            rows: (0..<100).map { (i: Int) -> Snapshot in
                let score: Value = i % 5 == 0 ? .null : .double(Double(i) / 4)
                let row: Snapshot = [
                    "ts": .integer(Int64((i * 37) % 100)), "body": .string("b\(i % 3)"), "flag": .bool(i % 4 == 0),
                    "score": score, "team": .object(teams[i % 2]),
                ]
                return row
            })
        graph.close()
        let db = try Connection(path: path)
        defer { db.close() }
        try db.execute("UPDATE \"Msg\" SET \"flag\" = 2 WHERE \"_pk\" % 7 = 0")
        try db.execute("UPDATE \"Msg\" SET \"team\" = 'none' WHERE \"_pk\" % 11 = 0")
    }

    static func open(_ path: String) throws -> SQLiteStore {
        try SQLiteStore.open(path: path, model: model) { try SQLFunctions.register(on: $0) }
    }

    static func filter(_ predicate: String?) throws -> (any ObjectFilter)? {
        guard let predicate else { return nil }
        return try RequestCompiler(model: model).compile(FetchRequest(entity: "Msg", predicate: predicate)).filter
    }

    /// The rows, the history and the transactions of the file at `path`, without what differs
    /// between two files by their making (a plain client's times, a writer's origin).
    static func dump(_ path: String) throws -> [[SQLValue]] {
        let db = try Connection(path: path)
        defer { db.close() }
        var out: [[SQLValue]] = []
        for sql in [
            "SELECT * FROM \"Msg\" ORDER BY \"_pk\"",
            "SELECT seq, txn, time IS NULL, entity, pk, op, keys, version, old, other FROM \"_fetchd_history\" ORDER BY seq",
            "SELECT token, author FROM \"_fetchd_transactions\" ORDER BY token",
        ] {
            let s = try db.prepare(sql)
            defer { s.reset() }
            while try s.step() { out.append((0..<s.columnCount).map { s.value($0) }) }
            out.append([.text("--")])
        }
        return out
    }

    static func run(_ op: Op, _ graph: ObjectGraph) throws -> Int {
        switch op {
        case .update(let p, let values): try graph.batchUpdate("Msg", filter: try filter(p), values: values)
        case .delete(let p): try graph.batchDelete("Msg", filter: try filter(p), ids: nil)
        }
    }

    @Test func sqlAloneWritesWhatNotingWrites() throws {
        let dir = TempDir()
        let (fastPath, notedPath) = (dir.file("fast.sqlite"), dir.file("noted.sqlite"))
        try Self.makeStore(fastPath)
        try Self.makeStore(notedPath)
        #expect(try Self.dump(fastPath) == Self.dump(notedPath))
        let fast = ObjectGraph(store: try Self.open(fastPath))
        let noted = ObjectGraph(store: try Self.open(notedPath))
        defer {
            fast.close()
            noted.close()
        }
        let probe = Probe()
        fast.addObserver(probe)
        var notedSets = 0
        noted.observeChangeSets { _ in notedSets += 1 }
        for (i, op) in Self.ops.enumerated() {
            let answer = try Self.run(op, fast)
            #expect(try answer == Self.run(op, noted), "op \(i)")
            let (a, b) = (try Self.dump(fastPath), try Self.dump(notedPath))
            #expect(
                a == b,
                "op \(i): \(zip(a, b).first { $0 != $1 }.map { "\($0) != \($1)" } ?? "\(a.count) != \(b.count)")")
        }
        #expect(probe.sets.isEmpty)
        #expect(notedSets > 0)
        // What the store holds, read back through the contexts.
        #expect(try fast.context(ObjectGraph.mainContext).fetch(entity: "Msg").isEmpty)
    }

    enum Reason: CaseIterable {
        case changeSetHandler, unsavedInRoot, unsavedInChild, undoEntry
    }

    /// Each reason to note the rows keeps the noted path: the probe hears the batch.
    @Test(arguments: Reason.allCases)
    func anythingUsingTheRowsKeepsTheNotedPath(_ reason: Reason) throws {
        let (dir, graph, probe) = try Self.probedGraph()
        defer { withExtendedLifetime(dir) { graph.close() } }
        let main = try graph.context(ObjectGraph.mainContext)
        let msg = ObjectID(entity: "Msg", number: 2)
        var handled: [ChangeSet] = []
        var editor = main
        switch reason {
        case .changeSetHandler: graph.observeChangeSets { handled.append($0) }
        case .unsavedInRoot: try main.update(msg, ["body": .string("mine")])
        case .unsavedInChild:
            editor = try graph.createContext("child", parent: ObjectGraph.mainContext)
            try editor.update(msg, ["body": .string("mine")])
        case .undoEntry:
            main.enableUndo(levels: nil)
            try main.update(msg, ["body": .string("undoable")])
            try main.save()
        }
        graph.processPendingChanges()
        probe.sets = []
        handled = []
        let n = try graph.batchUpdate("Msg", filter: Self.filter("ts < 50"), values: ["score": .double(99)])
        #expect(n == 50)
        #expect(probe.sets.map(\.reason).contains(.batch))
        if reason == .changeSetHandler { #expect(handled.first?.changes.count == 50) }
        if reason == .unsavedInRoot {
            // The unsaved change now stands on the batch's values.
            let seen = try editor.object(msg)
            #expect(seen?["body"] == .string("mine"))
            #expect(seen?["score"] == (try graph.store.read(msg)?.values["score"]))
        }
    }

    /// Unsaved changes of another entity need nothing of these rows.
    @Test func unsavedChangesOfAnotherEntityLeaveSQLAlone() throws {
        let (dir, graph, probe) = try Self.probedGraph()
        defer { withExtendedLifetime(dir) { graph.close() } }
        let main = try graph.context(ObjectGraph.mainContext)
        try main.update(ObjectID(entity: "Team", number: 1), ["title": .string("renamed")])
        graph.processPendingChanges()
        probe.sets = []
        #expect(try graph.batchDelete("Msg", filter: Self.filter("ts < 50"), ids: nil) == 50)
        #expect(probe.sets.isEmpty)
        #expect(try main.fetch(entity: "Msg").count == 50)
        #expect(try main.object(ObjectID(entity: "Team", number: 1))?["title"] == .string("renamed"))
    }
}
