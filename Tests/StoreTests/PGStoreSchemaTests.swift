import Foundation
import Model
import Postgres
import Predicates
import TestSupport
import Testing

@testable import Store

#if canImport(Glibc)
    import Glibc
#endif

/// Opening, plain clients' rows and the history's upkeep on PostgreSQL.
@Suite(.serialized) struct PGStoreSchemaTests {
    @Test func storesOpeningANewSchemaAtOnceCreateItOnce() throws {
        let scratch = try PGScratch("pgstore_race")
        let url = scratch.url
        let schema = scratch.schema
        let done = Counter()
        let failures = Counter()
        for _ in 0..<4 {
            Thread.detachNewThread {
                defer { done.add() }
                do {
                    let store = try PGStore.open(url: url, model: Models.contacts, schema: schema)
                    _ = try store.reserveID(for: "Contact")
                    store.close()
                } catch { failures.add() }
            }
        }
        while done.value < 4 { usleep(10_000) }
        #expect(failures.value == 0)
        let store = try scratch.open()
        defer { store.close() }
        #expect(!store.migrated && store.modelVersion == 1)
        #expect(try scratch.client().exec("SELECT count(*) FROM _fetchd_metadata").int64(0, 0) == 2)
    }

    @Test func theRecordedModelIsReadWithoutOpening() throws {
        let scratch = try PGScratch("pgstore_recorded")
        #expect(throws: EngineError.self) { try PGStore.recordedModel(url: scratch.url, schema: scratch.schema) }
        try scratch.open().close()
        #expect(try PGStore.recordedModel(url: scratch.url + "&schema=\(scratch.schema)") == Models.contacts)
    }

    @Test func aSchemaWithOtherTablesOrATooLongNameIsRefused() throws {
        let scratch = try PGScratch("pgstore_foreign")
        try PGConnection(scratch.url).exec(
            "CREATE SCHEMA \(scratch.schema); CREATE TABLE \(scratch.schema).other (x int)")
        #expect(throws: EngineError.self) { try scratch.open() }
        #expect(throws: EngineError.self) {
            try PGStore.open(url: scratch.url, model: Models.contacts, schema: String(repeating: "s", count: 60))
        }
    }

    @Test func plainClientsRowsAreCheckedAndTruncateIsRefused() throws {
        let scratch = try PGScratch("pgstore_problems")
        let store = try scratch.open()
        defer { store.close() }
        let raw = try scratch.client()
        let n = try raw.exec("INSERT INTO \"Contact\" (name, age) VALUES (NULL, NULL) RETURNING _pk").int64(0, 0)!
        let id = ObjectID(entity: "Contact", number: n)
        let problems = try store.storedProblems(id)
        #expect(
            problems == [
                InvalidValue(id: id, key: "name", problem: "required value missing"),
                InvalidValue(id: id, key: "age", problem: "required value missing"),
            ], "\(problems)")
        #expect(try store.storedProblems(ObjectID(entity: "Contact", number: 999)) == [])
        #expect(throws: PGError.self) { try raw.exec("TRUNCATE \"Contact\" CASCADE") }
    }

    /// The insert trigger records a statement's rows as runs of consecutive numbers: one
    /// run without sorting when they are consecutive, several when there are gaps; the
    /// sequence then moves past numbers a plain client chose.
    @Test func aPlainInsertIsRecordedAsRunsOfNumbers() throws {
        let scratch = try PGScratch("pgstore_runs")
        let store = try scratch.open()
        defer { store.close() }
        let raw = try scratch.client()
        func inserted(_ numbers: [Int64]) throws -> [Int64] {
            let start = try store.currentToken
            let values = numbers.map { "(\($0), 'g\($0)')" }.joined(separator: ", ")
            try raw.exec("INSERT INTO \"Group\" (_pk, title) VALUES \(values)")
            let h = try store.history(after: start)
            #expect(h.count == 1)
            #expect(h.flatMap(\.changes).allSatisfy { $0.operation == .insert })
            return h.flatMap(\.changes).map(\.id.number).sorted()
        }
        #expect(try inserted([12, 10, 11]) == [10, 11, 12])
        #expect(try inserted([20, 24, 21, 30]) == [20, 21, 24, 30])
        #expect(try inserted([40]) == [40])
        #expect(try store.reserveID(for: "Group").number > 40)
    }

    @Test func aPlainDeleteOfALinkedObjectIsUndoneByThePriorView() throws {
        let scratch = try PGScratch("pgstore_links")
        let store = try scratch.open()
        defer { store.close() }
        let c = try store.reserveID(for: "Contact")
        let t1 = try store.reserveID(for: "Tag")
        let t2 = try store.reserveID(for: "Tag")
        try store.write(
            StoreBatch(inserts: [
                (c, ["name": .string("Ana"), "age": .integer(1), "tags": .objects([t1, t2])]),
                (t1, ["label": .string("a")]), (t2, ["label": .string("b")]),
            ]))
        // A fetchd update removing one link records only that link.
        try store.write(
            StoreBatch(updates: [(c, ["name": .string("Ana"), "age": .integer(1), "tags": .objects([t2])])]))
        let own = try #require(try store.history(after: 0).last)
        #expect(own.changes.count == 3)
        #expect(own.changes.contains(HistoryChange(id: c, operation: .update, keys: [])))
        #expect(own.changes.contains(HistoryChange(id: c, operation: .update, keys: ["tags"])))
        #expect(own.changes.contains(HistoryChange(id: t1, operation: .update, keys: ["contacts"])))
        let start = try store.currentToken
        try scratch.client().exec("DELETE FROM \"Contact\" WHERE _pk = \(c.number)")
        let h = try store.history(after: start)
        #expect(h.count == 1)
        #expect(Set(h[0].changes.map(\.id)) == [c, t2])
        let prior = try store.priorObjects(h)
        store.overlay = prior
        #expect(try store.read(c)?.values["tags"] == .objects([t2]))
        #expect(try store.read(t2)?.values["contacts"] == .objects([c]))
        store.overlay = nil
        #expect(try store.read(c) == nil)
        #expect(try store.read(t2)?.values["contacts"] == .objects([]))
    }

    @Test func pruningKeepsWhatALiveCursorHasNotRead() throws {
        let scratch = try PGScratch("pgstore_prune")
        let reader = try scratch.open()
        let writer = try scratch.open()
        defer {
            reader.close()
            writer.close()
        }
        writer.retention.pruneInterval = 0
        writer.retention.maxRows = 2
        for i in 0..<6 {
            writer.mergeCursor = try writer.currentToken
            try writer.write(StoreBatch(inserts: [(try writer.reserveID(for: "Group"), ["title": .string("\(i)")])]))
        }
        // The reader's cursor (recorded at open, token 0) holds every row back.
        #expect(try writer.oldestToken == 1)
        #expect(try !reader.historyGap(after: 0))
        reader.mergeCursor = try reader.currentToken
        reader.recordCursorIfDue()
        writer.mergeCursor = try writer.currentToken
        try writer.write(StoreBatch(inserts: [(try writer.reserveID(for: "Group"), ["title": .string("last")])]))
        let newest = try writer.currentToken
        #expect(try writer.oldestToken == newest - 1)
        #expect(try reader.historyGap(after: 0))
        #expect(try !reader.historyGap(after: reader.mergeCursor))
    }
}

extension PGStoreSchemaTests {
    /// The contacts model with notes added, tags removed and the group relationship removed.
    static let reshaped = ObjectModel(entities: [
        Entity(
            name: "Contact",
            attributes: [
                Attribute(name: "name", type: .string),
                Attribute(name: "age", type: .integer, defaultValue: .integer(0), indexed: true),
                Attribute(name: "photo", type: .binary, optional: true),
            ],
            relationships: [
                Relationship(name: "notes", destination: "Note", toMany: true, inverse: "contact")
            ]),
        Entity(name: "Group", attributes: [Attribute(name: "title", type: .string)]),
        Entity(
            name: "Note", attributes: [Attribute(name: "text", type: .string, optional: true)],
            relationships: [Relationship(name: "contact", destination: "Contact", toMany: false, inverse: "notes")]),
    ])

    @Test func migrationAddsAndRemovesEntitiesAndRelationships() throws {
        let scratch = try PGScratch("pgstore_reshape")
        let store = try scratch.open()
        let c = try store.reserveID(for: "Contact")
        let g = try store.reserveID(for: "Group")
        let t = try store.reserveID(for: "Tag")
        try store.write(
            StoreBatch(inserts: [
                (c, ["name": .string("Ana"), "age": .integer(3), "group": .object(g), "tags": .objects([t])]),
                (g, ["title": .string("G")]), (t, ["label": .string("T")]),
            ]))
        store.close()
        let reshaped = try scratch.open(Self.reshaped)
        defer { reshaped.close() }
        #expect(reshaped.migrated)
        #expect(
            try reshaped.read(c)?.values == [
                "name": .string("Ana"), "age": .integer(3), "photo": .null, "notes": .objects([]),
            ])
        let n = try reshaped.reserveID(for: "Note")
        try reshaped.write(StoreBatch(inserts: [(n, ["text": .string("hi"), "contact": .object(c)])]))
        #expect(try reshaped.read(c)?.values["notes"] == .objects([n]))
        // The new table has its history triggers and its foreign key.
        let raw = try scratch.client()
        let start = try reshaped.currentToken
        try raw.exec("UPDATE \"Note\" SET text = 'plain'")
        #expect(
            try reshaped.history(after: start).first?.changes == [
                HistoryChange(id: n, operation: .update, keys: ["text"])
            ])
        #expect(throws: PGError.self) { try raw.exec("INSERT INTO \"Note\" (text, contact) VALUES ('x', 999)") }
        #expect(try raw.exec("SELECT to_regclass('\"Tag\"')").rows[0][0] == nil)
    }
}

extension PGStoreSchemaTests {
    @Test func longNamesSharingTheirStartStayApart() throws {
        let a = "Alpha" + String(repeating: "a", count: 40)
        let b = "Beta" + String(repeating: "b", count: 40)
        let long = String(repeating: "r", count: 55)
        let model = ObjectModel(entities: [
            Entity(
                name: a,
                attributes: [
                    Attribute(name: long + "One", type: .integer, indexed: true),
                    Attribute(name: long + "Two", type: .integer, indexed: true),
                ],
                relationships: [
                    Relationship(name: long + "First", destination: b, toMany: true, inverse: "firsts"),
                    Relationship(name: long + "Second", destination: b, toMany: true, inverse: "seconds"),
                ]),
            Entity(
                name: b, attributes: [],
                relationships: [
                    Relationship(name: "firsts", destination: a, toMany: true, inverse: long + "First"),
                    Relationship(name: "seconds", destination: a, toMany: true, inverse: long + "Second"),
                ]),
        ])
        let scratch = try PGScratch("pgstore_long")
        let store = try scratch.open(model)
        defer { store.close() }
        let x = try store.reserveID(for: a)
        let y = try store.reserveID(for: b)
        let z = try store.reserveID(for: b)
        try store.write(
            StoreBatch(inserts: [
                (
                    x,
                    [
                        long + "One": .integer(1), long + "Two": .integer(2), long + "First": .objects([y]),
                        long + "Second": .objects([z]),
                    ]
                ),
                (y, [:]), (z, [:]),
            ]))
        let read = try #require(try store.read(x))
        #expect(read.values[long + "First"] == .objects([y]))
        #expect(read.values[long + "Second"] == .objects([z]))
        #expect(try store.read(z)?.values["seconds"] == .objects([x]))
        #expect(try store.read(z)?.values["firsts"] == .objects([]))
        let indexes = try scratch.client().exec(
            "SELECT count(*) FROM pg_indexes WHERE schemaname = $1 AND indexname LIKE '\\_idx\\_%'",
            [.text(scratch.schema)])
        // Two attribute indexes and the two join tables' (b, a) indexes.
        #expect(indexes.int64(0, 0) == 4)
        let start = try store.currentToken
        try store.write(
            StoreBatch(updates: [
                (x, [long + "One": .integer(1), long + "Two": .integer(2), long + "First": .objects([])])
            ]))
        let h = try store.history(after: start)
        #expect(h.first?.changes.contains(HistoryChange(id: y, operation: .update, keys: ["firsts"])) == true)
    }
}

extension PGStoreSchemaTests {
    @Test func aSchemaNameNeedingQuotesWorksThroughout() throws {
        let schema = "Fetchd \"Q\" s\(getpid())"
        let url = try TestPostgres.url()
        try PGScratch.drop(url, schema)
        defer { try? PGScratch.drop(url, schema) }
        let store = try PGStore.open(url: url, model: Models.contacts, schema: schema)
        defer { store.close() }
        let announcer = try #require(store.makeChangeAnnouncer(log: { _ in }))
        let g = try store.reserveID(for: "Group")
        try store.write(StoreBatch(inserts: [(g, ["title": .string("t")])]))
        let raw = try PGConnection(url)
        try raw.exec("UPDATE \(SchemaNaming.quoted(schema)).\"Group\" SET title = 'u'")
        #expect(try store.hasExternalChanges())
        #expect(try store.history(after: 0).map(\.isExternalClient) == [false, true])
        usleep(100_000)
        #expect(announcer.drain())
        #expect(try PGStore.recordedModel(url: url, schema: schema) == Models.contacts)
    }
}

extension PGStoreSchemaTests {
    @Test func readingTheHistoryForAClientLeavesTheWatcherItsNews() throws {
        let scratch = try PGScratch("pgstore_readhistory")
        let store = try scratch.open()
        let other = try scratch.open()
        defer {
            store.close()
            other.close()
        }
        let before = StoreClock.now()
        try other.write(StoreBatch(inserts: [(try other.reserveID(for: "Group"), ["title": .string("x")])]))
        #expect(try store.hasExternalChanges())
        let read = try store.readHistory(after: 0, limit: 10)
        #expect(read.count == 1 && read[0].origin == other.origin)
        #expect(try store.hasExternalChanges())
        #expect(try store.firstToken(notBefore: before - 1) == read[0].token)
        #expect(try store.firstToken(notBefore: StoreClock.now() + 60) == read[0].token + 1)
        _ = try store.history(after: 0)
        #expect(try !store.hasExternalChanges())
        // Own commits are not news; another's commit before an own one still is.
        try store.write(StoreBatch(inserts: [(try store.reserveID(for: "Group"), ["title": .string("mine")])]))
        #expect(try !store.hasExternalChanges())
        try other.write(StoreBatch(inserts: [(try other.reserveID(for: "Group"), ["title": .string("theirs")])]))
        try store.write(StoreBatch(inserts: [(try store.reserveID(for: "Group"), ["title": .string("mine 2")])]))
        #expect(try store.hasExternalChanges())
    }
}

extension PGStoreSchemaTests {
    @Test func anIndexedStringServesTheOrderQueriesSortBy() throws {
        let model = ObjectModel(entities: [
            Entity(name: "Word", attributes: [Attribute(name: "text", type: .string, indexed: true)])
        ])
        let scratch = try PGScratch("pgstore_textindex")
        let store = try scratch.open(model)
        defer { store.close() }
        let compiled = try RequestCompiler(model: model).compile(
            FetchRequest(entity: "Word", sortDescriptors: [SortDescriptor(key: "text")]))
        let order = try PGQuery.orderBy(compiled.ordering, alias: "t").text
        let raw = try scratch.client()
        for direction in [order, order.replacingOccurrences(of: "ASC NULLS FIRST", with: "DESC NULLS LAST")] {
            let plan = try raw.exec(
                "SET enable_seqscan = off; EXPLAIN SELECT t._pk FROM \"Word\" AS t ORDER BY \(direction)")
            let text = plan.rows.map { $0[0] ?? "" }.joined(separator: "\n")
            #expect(text.contains("Index Scan") && !text.contains("Sort"), "\(direction): \(text)")
        }
    }
}
