import Model
import SQLite
import TestSupport
import Testing

@testable import Store

enum Models {
    static let contacts = ObjectModel(entities: [
        Entity(
            name: "Contact",
            attributes: [
                Attribute(name: "name", type: .string),
                Attribute(name: "age", type: .integer, defaultValue: .integer(0), indexed: true),
                Attribute(name: "photo", type: .binary, optional: true),
            ],
            relationships: [
                Relationship(name: "group", destination: "Group", toMany: false, inverse: "members"),
                Relationship(name: "tags", destination: "Tag", toMany: true, inverse: "contacts"),
            ]),
        Entity(
            name: "Group", attributes: [Attribute(name: "title", type: .string)],
            relationships: [Relationship(name: "members", destination: "Contact", toMany: true, inverse: "group")]),
        Entity(
            name: "Tag", attributes: [Attribute(name: "label", type: .string)],
            relationships: [Relationship(name: "contacts", destination: "Contact", toMany: true, inverse: "tags")]),
    ])

    static func adding(_ model: ObjectModel, to entity: String, _ attribute: Attribute) -> ObjectModel {
        var entities = model.entities
        let i = entities.firstIndex { $0.name == entity }!
        entities[i].attributes.append(attribute)
        return ObjectModel(entities: entities)
    }
}

@Suite struct StoreTests {
    let c1 = StoreRoundTrip.c1
    let g1 = StoreRoundTrip.g1
    let t1 = StoreRoundTrip.t1

    private func seed(_ store: SQLiteStore) throws { try StoreRoundTrip.seed(store) }

    @Test func writesAndReadsObjectsWithRelationships() throws {
        try StoreRoundTrip.writesAndReadsObjectsWithRelationships(try SQLiteStore.open(model: Models.contacts))
    }

    @Test func createsTablesIndexesAndWALFile() throws {
        let dir = TempDir()
        let store = try SQLiteStore.open(path: dir.file("a.sqlite"), model: Models.contacts)
        let db = try store.connection
        let mode = try db.prepare("PRAGMA journal_mode")
        _ = try mode.step()
        #expect(mode.text(0) == "wal")
        let idx = try db.prepare(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE '_idx%' ORDER BY name")
        var names: [String] = []
        while try idx.step() { names.append(idx.text(0)) }
        #expect(names == ["_idx_Contact_age", "_idx_Contact_group", "_idx_join_Contact_tags_b"])
        store.close()
    }

    @Test func persistsAcrossReopen() throws {
        let dir = TempDir()
        let file = dir.file("p.sqlite")
        do {
            let store = try SQLiteStore.open(path: file, model: Models.contacts)
            try seed(store)
            _ = try store.reserveID(for: "Contact") // reserved, never saved
            try store.write(StoreBatch())
            store.close()
        }
        let store = try SQLiteStore.open(path: file, model: Models.contacts)
        #expect(!store.migrated)
        #expect(try store.read(c1)?.values["name"] == .string("Ana"))
        #expect(try store.read(t1)?.values["contacts"] == .objects([c1]))
        // Numbers are not reused, not even one that was only reserved.
        #expect(try store.reserveID(for: "Contact").number == 3)
    }

    @Test func failedWriteLeavesStoreAsItWas() throws {
        let store = try SQLiteStore.open(model: Models.contacts)
        try seed(store)
        let c2 = try store.reserveID(for: "Contact")
        // The second insert points at a group that does not exist: the foreign key fails at COMMIT.
        #expect(throws: EngineError.self) {
            try store.write(
                StoreBatch(
                    inserts: [(c2, ["name": .string("Bo")])],
                    updates: [
                        (c1, ["name": .string("changed"), "group": .object(ObjectID(entity: "Group", number: 99))])
                    ]))
        }
        #expect(try store.read(c2) == nil)
        #expect(try store.read(c1)?.values["name"] == .string("Ana"))
        #expect(try store.version(of: c1) == 1)
    }

    @Test func migratesAddedAttributeAndEntity() throws {
        let dir = TempDir()
        let file = dir.file("m.sqlite")
        do {
            let s = try SQLiteStore.open(path: file, model: Models.contacts)
            try seed(s)
            s.close()
        }
        var model = Models.adding(
            Models.contacts, to: "Contact",
            Attribute(name: "score", type: .double, defaultValue: .double(1.5), indexed: true))
        model = Models.adding(model, to: "Group", Attribute(name: "note", type: .string, optional: true))
        model = ObjectModel(
            entities: model.entities + [Entity(name: "Note", attributes: [Attribute(name: "text", type: .string)])])
        let store = try SQLiteStore.open(path: file, model: model)
        #expect(store.migrated)
        #expect(store.modelVersion == 2)
        #expect(try store.read(c1)?.values["score"] == .double(1.5))
        #expect(try store.read(g1)?.values["note"] == .null)
        let n = try store.reserveID(for: "Note")
        try store.write(StoreBatch(inserts: [(n, ["text": .string("hi")])]))
        #expect(try store.read(n)?.values["text"] == .string("hi"))
        store.close()
        let again = try SQLiteStore.open(path: file, model: model)
        #expect(!again.migrated)
        #expect(again.modelVersion == 2)
    }

    @Test func migratesAddedRelationships() throws {
        let dir = TempDir()
        let file = dir.file("rel.sqlite")
        do {
            let s = try SQLiteStore.open(path: file, model: Models.contacts)
            try seed(s)
            s.close()
        }
        var entities = Models.contacts.entities
        // A one-to-many between existing entities and a many-to-many to a new one.
        entities[0].relationships.append(
            Relationship(name: "leads", destination: "Group", toMany: true, inverse: "leader"))
        entities[1].relationships.append(
            Relationship(name: "leader", destination: "Contact", toMany: false, inverse: "leads"))
        entities[1].relationships.append(
            Relationship(name: "labels", destination: "Label", toMany: true, inverse: "groups"))
        entities.append(
            Entity(
                name: "Label", attributes: [Attribute(name: "text", type: .string)],
                relationships: [Relationship(name: "groups", destination: "Group", toMany: true, inverse: "labels")]))
        let store = try SQLiteStore.open(path: file, model: ObjectModel(entities: entities))
        #expect(store.migrated)
        #expect(try store.read(g1)?.values["leader"] == .null)
        #expect(try store.read(c1)?.values["leads"] == .objects([]))
        let label = try store.reserveID(for: "Label")
        try store.write(
            StoreBatch(
                inserts: [(label, ["text": .string("x"), "groups": .objects([g1])])],
                updates: [(g1, ["title": .string("Friends"), "leader": .object(c1)])]))
        #expect(try store.read(c1)?.values["leads"] == .objects([g1]))
        #expect(try store.read(g1)?.values["labels"] == .objects([label]))
        // A required relationship cannot be added to existing rows.
        var required = entities
        required[2].relationships.append(
            Relationship(name: "owner", destination: "Label", toMany: false, inverse: "owned", optional: false))
        required[3].relationships.append(
            Relationship(name: "owned", destination: "Tag", toMany: true, inverse: "owner"))
        store.close()
        #expect(throws: EngineError.self) {
            _ = try SQLiteStore.open(path: file, model: ObjectModel(entities: required))
        }
    }

    @Test func refusedMigrationLeavesFileByteIdentical() throws {
        let dir = TempDir()
        let file = dir.file("r.sqlite")
        do {
            let s = try SQLiteStore.open(path: file, model: Models.contacts)
            try seed(s)
            s.close()
        }
        let before = try #require(fileBytes(file))
        var entities = Models.contacts.entities
        entities[0].attributes[1] = Attribute(name: "age", type: .string, defaultValue: .string("0"), indexed: true)
        do {
            _ = try SQLiteStore.open(path: file, model: ObjectModel(entities: entities))
            Issue.record("type change accepted")
        } catch {
            #expect(error.kind == .migrationRefused)
            #expect(error.detail("key") == .string("age"))
        }
        entities = Models.contacts.entities
        entities[0].attributes[2].optional = false
        #expect(throws: EngineError.self) {
            _ = try SQLiteStore.open(path: file, model: ObjectModel(entities: entities))
        }
        let required = Models.adding(Models.contacts, to: "Group", Attribute(name: "rank", type: .integer))
        #expect(throws: EngineError.self) { _ = try SQLiteStore.open(path: file, model: required) }
        #expect(fileBytes(file) == before)
        #expect(fileBytes(file + "-wal") == nil)
        let store = try SQLiteStore.open(path: file, model: Models.contacts)
        #expect(try store.read(c1)?.values["age"] == .integer(30))
    }

    @Test func migratesOptionalToRequiredWithDefaultAndRemovals() throws {
        let dir = TempDir()
        let file = dir.file("o.sqlite")
        do {
            let s = try SQLiteStore.open(path: file, model: Models.contacts)
            try seed(s)
            try s.write(
                StoreBatch(updates: [
                    (
                        c1,
                        [
                            "name": .string("Ana"), "age": .integer(30), "photo": .null,
                            "group": .object(g1), "tags": .objects([t1]),
                        ]
                    )
                ]))
            s.close()
        }
        var entities = Models.contacts.entities
        entities[0].attributes[2] = Attribute(name: "photo", type: .binary, defaultValue: .binary([9]))
        entities[0].relationships.removeAll { $0.name == "tags" }
        entities.removeAll { $0.name == "Tag" }
        let store = try SQLiteStore.open(path: file, model: ObjectModel(entities: entities))
        #expect(store.migrated)
        let c = try #require(try store.read(c1))
        #expect(c.values["photo"] == .binary([9]))
        #expect(c.values["tags"] == nil)
        let tables = try store.connection.prepare(
            "SELECT count(*) FROM sqlite_master WHERE name IN ('Tag', '_join_Contact_tags')")
        _ = try tables.step()
        #expect(tables.int64(0) == 0)
    }

    @Test func refusesInvalidModelAndForeignFiles() throws {
        let bad = ObjectModel(entities: [
            Entity(
                name: "A", attributes: [],
                relationships: [Relationship(name: "b", destination: "B", toMany: false, inverse: "a")])
        ])
        #expect(throws: EngineError.self) { _ = try SQLiteStore.open(model: bad) }
        let dir = TempDir()
        let file = dir.file("other.sqlite")
        do {
            let db = try Connection(path: file)
            try db.execute("CREATE TABLE t(x)")
        }
        do {
            _ = try SQLiteStore.open(path: file, model: Models.contacts)
            Issue.record("opened a foreign file")
        } catch {
            #expect(error.kind == .storeError)
        }
    }

    @Test func configureHookRunsBeforeQueries() throws {
        var ran = false
        let store = try SQLiteStore.open(model: Models.contacts) { db in
            ran = true
            try db.createFunction("twice", arity: 1) { args in
                if case .integer(let v) = args[0] { return .integer(v * 2) }
                return .null
            }
        }
        #expect(ran)
        let s = try store.connection.prepare("SELECT twice(4)")
        _ = try s.step()
        #expect(s.int64(0) == 8)
    }
}
