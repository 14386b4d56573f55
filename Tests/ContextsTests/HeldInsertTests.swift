import Model
import Store
import TestSupport
import Testing

@testable import Contexts

/// A batch insert sent in parts (ObjectGraph+HeldInsert.swift): parts are checked when they
/// arrive and held; the last part writes them all as one insert and one change cycle; any
/// problem drops what was held.
@Suite struct HeldInsertTests {
    static func contacts(_ names: [String]) -> [Snapshot] { names.map { ["name": .string($0)] } }

    /// The rows' problems as "row:key" strings, and the error's count of dropped rows.
    static func problems(_ error: EngineError?) -> ([String], Int64?) {
        let found = batchProblems(error).map { p in
            "\(p["row"].map { "\($0)" } ?? "-"):\(p["key"].map { "\($0)" } ?? "-")"
        }
        guard case .int(let dropped)? = error?.detail("heldRowsDropped") else { return (found, nil) }
        return (found, dropped)
    }

    @Test func partsAreWrittenByTheLastAsOneInsertAndOneCycle() throws {
        let (graph, recorder) = try Fixture.graph()
        let main = try graph.context(ObjectGraph.mainContext)
        #expect(try graph.holdInsertPart("Contact", rows: Self.contacts(["a", "b"])) == 2)
        #expect(try graph.holdInsertPart("Contact", rows: Self.contacts(["c"])) == 3)
        // Held is not written: neither the store nor any context sees it, and no cycle ran.
        #expect(try graph.store.count(entity: "Contact", filter: nil) == 0)
        #expect(recorder.take().isEmpty)
        let ids = try graph.batchInsert("Contact", rows: Self.contacts(["d", "e"]))
        #expect(ids.count == 5 && ids.map(\.number) == ids.map(\.number).sorted())
        #expect(try ids.map { try main.object($0)?["name"] } == ["a", "b", "c", "d", "e"].map { .string($0) })
        let sets = recorder.take()
        #expect(sets.map(\.reason) == [.batch])
        #expect(sets.first?.changes.map(\.id) == ids)
        #expect(graph.heldInsertCount("Contact") == 0)
    }

    @Test func aBadRowInAPartIsNumberedThroughTheInsertAndDropsTheHeldRows() throws {
        let (graph, recorder) = try Fixture.graph()
        try graph.holdInsertPart("Contact", rows: Self.contacts(["a", "b"]))
        let error = engineError {
            try graph.holdInsertPart(
                "Contact", rows: [["name": .string("c")], ["name": .integer(4)]],
                rejected: [.init(row: 0, key: "age", reason: "expected an integer, got string")])
        }
        #expect(error?.kind == .validation)
        let (found, dropped) = Self.problems(error)
        #expect(found == ["int(2):string(\"age\")", "int(3):string(\"name\")"])
        #expect(dropped == 2)
        #expect(graph.heldInsertCount("Contact") == 0)
        // The next insert starts over: only its own rows are written.
        #expect(try graph.batchInsert("Contact", rows: Self.contacts(["z"])).count == 1)
        #expect(try graph.store.count(entity: "Contact", filter: nil) == 1)
        #expect(recorder.take().count == 1)
    }

    @Test func theLastPartsProblemsAreNumberedAfterTheHeldRows() throws {
        let (graph, _) = try Fixture.graph()
        try graph.holdInsertPart("Contact", rows: Self.contacts(["a", "b", "c"]))
        let error = engineError { try graph.batchInsert("Contact", rows: [["age": .integer(1)]]) }
        let (found, dropped) = Self.problems(error)
        #expect(found == ["int(3):string(\"name\")"])
        #expect(dropped == 3)
        #expect(try graph.store.count(entity: "Contact", filter: nil) == 0)
        #expect(graph.heldInsertCount("Contact") == 0)
    }

    /// A target that existed when its part was checked and was deleted before the write.
    @Test func aHeldRowsTargetDeletedBeforeTheWriteIsRefused() throws {
        let (graph, _) = try Fixture.graph()
        let main = try graph.context(ObjectGraph.mainContext)
        let group = try main.insert("Group", ["title": .string("g")])
        try main.save()
        try graph.holdInsertPart(
            "Contact", rows: [["name": .string("a")], ["name": .string("b"), "group": .object(group)]])
        try main.delete(group)
        try main.save()
        let error = engineError { try graph.batchInsert("Contact", rows: Self.contacts(["c"])) }
        let (found, dropped) = Self.problems(error)
        #expect(found == ["int(1):string(\"group\")"])
        #expect(dropped == 2)
        #expect(try graph.store.count(entity: "Contact", filter: nil) == 0)
    }

    @Test func partsWithTargetsKeepTheInversesInStep() throws {
        let (graph, _) = try Fixture.graph()
        let main = try graph.context(ObjectGraph.mainContext)
        let group = try main.insert("Group", ["title": .string("g")])
        try main.save()
        try graph.holdInsertPart("Contact", rows: [["name": .string("a"), "group": .object(group)]])
        let ids = try graph.batchInsert("Contact", rows: [["name": .string("b"), "group": .object(group)]])
        #expect(try main.object(group)?["members"] == .objects(ids))
    }

    @Test func droppingForgetsTheHeldRowsOfThatEntityOnly() throws {
        let (graph, _) = try Fixture.graph()
        try graph.holdInsertPart("Contact", rows: Self.contacts(["a", "b"]))
        try graph.holdInsertPart("Group", rows: [["title": .string("g")]])
        #expect(try graph.dropHeldInsert("Contact") == 2)
        #expect(try graph.dropHeldInsert("Contact") == 0)
        #expect(graph.heldInsertCount("Group") == 1)
        #expect(try graph.batchInsert("Contact", rows: Self.contacts(["c"])).count == 1)
        #expect(try graph.batchInsert("Group", rows: []).count == 1)
        #expect(engineError { try graph.dropHeldInsert("Nope") }?.kind == .unknownEntity)
    }

    /// The write itself failing (here: another connection holds the write lock) drops the
    /// held rows too, and says so.
    @Test func aFailedWriteDropsTheHeldRows() throws {
        let dir = TempDir()
        let (graph, _) = try Fixture.graph(path: dir.file("held.sqlite"))
        graph.store.busyTimeout = 50
        try graph.holdInsertPart("Contact", rows: Self.contacts(["a"]))
        let other = try SQLiteStore.open(path: dir.file("held.sqlite"), model: Fixture.model)
        try other.beginWrite(author: nil)
        defer { other.rollbackWrite() }
        let error = engineError { try graph.batchInsert("Contact", rows: Self.contacts(["b"])) }
        #expect(error?.kind == .storeBusy)
        #expect(error?.detail("heldRowsDropped") == .int(1))
        #expect(graph.heldInsertCount("Contact") == 0)
    }
}
