import Model
import SQLite
import TestSupport
import Testing

@testable import Store

/// The store as it was before some history: recorded old values come back bit for bit.
@Suite struct PriorViewTests {
    static let model = ObjectModel(entities: [
        Entity(
            name: "Sample",
            attributes: [
                Attribute(name: "d", type: .double), Attribute(name: "when", type: .date, optional: true),
                Attribute(name: "bytes", type: .binary, optional: true), Attribute(name: "flag", type: .boolean),
                Attribute(name: "text", type: .string, optional: true),
                Attribute(name: "uuid", type: .uuid, optional: true),
            ])
    ])

    @Test func oldValuesOfUpdatesAndDeletesAreExact() throws {
        let dir = TempDir()
        let store = try SQLiteStore.open(path: dir.file("p.sqlite"), model: Self.model)
        let a = try store.reserveID(for: "Sample")
        let b = try store.reserveID(for: "Sample")
        let va: Snapshot = [
            "d": .double(0.1 + 0.2), "when": .date(1e9 / 3), "bytes": .binary([0, 0xff, 0x10]),
            "flag": .bool(true), "text": .string("quote ' \" \\ é"), "uuid": .null,
        ]
        let vb: Snapshot = [
            "d": .double(-1e-300), "when": .null, "bytes": .binary([]), "flag": .bool(false),
            "text": .null, "uuid": .null,
        ]
        try store.write(StoreBatch(inserts: [(a, va), (b, vb)]))
        let start = try store.currentToken
        let raw = try Connection(path: dir.file("p.sqlite"))
        try raw.execute(
            "UPDATE \"Sample\" SET d = 2, bytes = NULL, text = 'x' WHERE _pk = \(a.number); DELETE FROM \"Sample\" WHERE _pk = \(b.number); INSERT INTO \"Sample\" (d, flag) VALUES (1, 0)"
        )
        let prior = try store.priorObjects(try store.history(after: start))
        #expect(prior.count == 3)
        #expect(prior[a] == .some(StoredObject(values: va, version: 1)))
        #expect(prior[b] == .some(StoredObject(values: vb, version: 1)))
        #expect(prior[ObjectID(entity: "Sample", number: raw.lastInsertRowID)] == .some(nil))
        store.overlay = prior
        #expect(try store.read(a)?.values == va)
        #expect(try store.read(b)?.values == vb)
        store.overlay = nil
        #expect(try store.read(a)?.values["d"] == .double(2))
    }
}
