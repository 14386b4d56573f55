import Model
import SQLite
import TestSupport
import Testing

@testable import Store

/// `StoreBatch.updatedKeys`: updates that change only some keys write only those columns,
/// and links only when a join-table relationship is among them (a whole-row update writes
/// every link again, and its history says so); otherwise the history is a whole-row
/// update's.
@Suite struct PartialUpdateTests {
    let dir = TempDir()

    func ops(_ txns: [HistoryTransaction]) -> [String] {
        txns.flatMap {
            $0.changes.map {
                "\($0.operation.rawValue) \($0.id)" + ($0.keys.map { " " + $0.joined(separator: ",") } ?? "")
            }
        }
    }

    /// A store with Ana (30, tagged t) and the history token after her.
    func seeded(_ name: String = "partial") throws -> (SQLiteStore, contact: ObjectID, tag: ObjectID, token: Int64) {
        let store = try SQLiteStore.open(path: dir.file(name + ".sqlite"), model: Models.contacts)
        let t = try store.reserveID(for: "Tag")
        let c = try store.reserveID(for: "Contact")
        try store.write(
            StoreBatch(inserts: [
                (t, ["label": .string("x")]),
                (c, ["name": .string("Ana"), "age": .integer(30), "tags": .objects([t])]),
            ]))
        return (store, c, t, try store.currentToken)
    }

    /// What the same updates record as whole-row updates, on a twin store.
    func wholeRow(_ updates: [(ObjectID, Snapshot)], inserting: [(ObjectID, Snapshot)] = []) throws -> [String] {
        let (twin, _, _, _) = try seeded("twin")
        try twin.write(StoreBatch(inserts: inserting))
        let start = try twin.currentToken
        try twin.write(StoreBatch(updates: updates))
        return ops(try twin.history(after: start))
    }

    @Test func onlyTheGivenKeysAreWrittenAndRecorded() throws {
        let (store, c, t, start) = try seeded()
        var batch = StoreBatch(updates: [(c, ["name": .string("Ana"), "age": .integer(31), "tags": .objects([t])])])
        batch.updatedKeys = ["age"]
        try store.write(batch)
        let row = try #require(try store.read(c))
        #expect(row.values["age"] == .integer(31) && row.values["name"] == .string("Ana") && row.version == 2)
        #expect(try store.relatedIDs(of: c, "tags") == [t])
        // No link rows: the join table was not rewritten.
        let txns = try store.history(after: start)
        #expect(ops(txns) == ["U \(c) age"])
        // The old values are the whole row's, as for any update.
        let old = try store.connection.prepareUncached(
            "SELECT old FROM \"\(HistoryNaming.history)\" WHERE seq > \(start) AND op = 'U'")
        #expect(try old.step())
        #expect(old.text(0) == "[\"Ana\",30,null,null]")
    }

    @Test func columnsOutsideTheKeysAreLeftAsStored() throws {
        let (store, c, t, _) = try seeded()
        // The writer promises the other values are the stored ones; they are not even bound.
        var batch = StoreBatch(updates: [
            (c, ["name": .string("Not written"), "age": .integer(5), "tags": .objects([t])])
        ])
        batch.updatedKeys = ["age"]
        try store.write(batch)
        #expect(try store.read(c)?.values["name"] == .string("Ana"))
        #expect(try store.read(c)?.values["age"] == .integer(5))
    }

    @Test func aJoinTableKeyRewritesTheLinks() throws {
        let (store, c, t, _) = try seeded()
        let u = try store.reserveID(for: "Tag")
        try store.write(StoreBatch(inserts: [(u, ["label": .string("y")])]))
        let after = try store.currentToken
        let updates: [(ObjectID, Snapshot)] = [
            (c, ["name": .string("Ana"), "age": .integer(30), "tags": .objects([u])])
        ]
        var batch = StoreBatch(updates: updates)
        batch.updatedKeys = ["tags"]
        try store.write(batch)
        #expect(try store.relatedIDs(of: c, "tags") == [u])
        #expect(try store.version(of: c) == 2)
        let got = ops(try store.history(after: after))
        #expect(got.contains("U \(t) contacts") && got.contains("U \(u) contacts"))
        let whole = try wholeRow(updates, inserting: [(u, ["label": .string("y")])])
        #expect(got == whole)
    }

    @Test func keysTheRowDoesNotHoldFallBackToTheWholeRow() throws {
        let (store, c, t, start) = try seeded()
        let updates: [(ObjectID, Snapshot)] = [
            (c, ["name": .string("Bo"), "age": .integer(30), "tags": .objects([t])])
        ]
        var batch = StoreBatch(updates: updates)
        batch.updatedKeys = ["name", "nickname"]
        try store.write(batch)
        #expect(try store.read(c)?.values["name"] == .string("Bo"))
        let got = ops(try store.history(after: start))
        let whole = try wholeRow(updates)
        #expect(got.first == "U \(c) name" && got == whole)
    }

    @Test func everyColumnIsAWholeRowUpdate() throws {
        let store = try SQLiteStore.open(path: dir.file("all.sqlite"), model: Models.contacts)
        let table = try #require(store.sqlTables["Contact"])
        #expect(table.partialUpdate(["age"])?.columns == ["age"])
        #expect(table.partialUpdate(["name", "age", "photo", "group"]) == nil)
        #expect(table.partialUpdate(["tags"])?.columns == [])
        #expect(table.partialUpdate(["tags"])?.joins == true)
        #expect(table.partialUpdate(["age"])?.joins == false)
    }
}
