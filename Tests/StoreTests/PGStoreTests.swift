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

/// A schema of its own on the test cluster (`make test-postgres`), dropped when done.
final class PGScratch {
    let schema: String
    let url: String

    init(_ name: String) throws {
        schema = "\(name)_\(getpid())"
        url = try TestPostgres.url()
        try Self.drop(url, schema)
    }

    deinit { try? Self.drop(url, schema) }

    static func drop(_ url: String, _ schema: String) throws {
        let c = try PGConnection(url)
        try c.exec("SET client_min_messages = warning; DROP SCHEMA IF EXISTS \(SchemaNaming.quoted(schema)) CASCADE")
    }

    func open(_ model: ObjectModel = Models.contacts) throws -> PGStore {
        try PGStore.open(url: url, model: model, schema: schema)
    }

    /// A plain SQL client on the schema.
    func client() throws -> PGConnection {
        let c = try PGConnection(url)
        try c.exec("SET search_path TO \(SchemaNaming.quoted(schema))")
        return c
    }
}

@Suite(.serialized) struct PGStoreTests {
    let c1 = ObjectID(entity: "Contact", number: 1)
    let g1 = ObjectID(entity: "Group", number: 1)
    let t1 = ObjectID(entity: "Tag", number: 1)

    private func seed(_ store: PGStore) throws {
        #expect(try store.reserveID(for: "Group") == g1)
        #expect(try store.reserveID(for: "Tag") == t1)
        #expect(try store.reserveID(for: "Contact") == c1)
        try store.write(
            StoreBatch(
                inserts: [
                    (
                        c1,
                        [
                            "name": .string("Ana"), "age": .integer(30), "photo": .binary([1, 2]), "group": .object(g1),
                            "tags": .objects([t1]),
                        ]
                    ),
                    (g1, ["title": .string("Friends")]),
                    (t1, ["label": .string("vip")]),
                ], author: "seed"))
    }

    @Test func writesAndReadsObjectsWithRelationships() throws {
        let scratch = try PGScratch("pgstore_rw")
        let store = try scratch.open()
        defer { store.close() }
        try seed(store)
        let c = try #require(try store.read(c1))
        #expect(c.version == 1)
        #expect(
            c.values == [
                "name": .string("Ana"), "age": .integer(30), "photo": .binary([1, 2]),
                "group": .object(g1), "tags": .objects([t1]),
            ])
        #expect(try store.read(g1)?.values["members"] == .objects([c1]))
        #expect(try store.read(t1)?.values["contacts"] == .objects([c1]))
        #expect(try store.relatedIDs(of: t1, "contacts") == [c1])
        try store.write(
            StoreBatch(updates: [
                (
                    c1,
                    [
                        "name": .string("Ana B"), "age": .integer(31), "photo": .null,
                        "group": .null, "tags": .objects([]),
                    ]
                )
            ]))
        let updated = try #require(try store.read(c1))
        #expect(updated.version == 2)
        #expect(try store.version(of: c1) == 2)
        #expect(updated.values["name"] == .string("Ana B"))
        #expect(updated.values["photo"] == .null)
        #expect(try store.read(g1)?.values["members"] == .objects([]))
        #expect(try store.read(t1)?.values["contacts"] == .objects([]))
        try store.write(StoreBatch(deletes: [c1]))
        #expect(try store.read(c1) == nil)
        #expect(try store.version(of: c1) == nil)
    }

    static let typesModel = ObjectModel(entities: [
        Entity(
            name: "Item",
            attributes: [
                Attribute(name: "s", type: .string, optional: true),
                Attribute(name: "i", type: .integer, optional: true),
                Attribute(name: "d", type: .double, optional: true),
                Attribute(name: "b", type: .boolean, optional: true),
                Attribute(name: "t", type: .date, optional: true),
                Attribute(name: "bin", type: .binary, optional: true),
                Attribute(name: "u", type: .uuid, optional: true),
            ])
    ])

    @Test func everyTypeRoundTripsExactly() throws {
        let scratch = try PGScratch("pgstore_types")
        let store = try scratch.open(Self.typesModel)
        defer { store.close() }
        let samples: [Snapshot] = [
            [
                "s": .string("héllo 🌍 \"q\" 'x' \\ \t\n"), "i": .integer(.max), "d": .double(0.1 + 0.2),
                "b": .bool(true), "t": .date(1_700_000_000.123456789), "bin": .binary([0, 255, 10, 13, 92, 39]),
                "u": .uuid("123e4567-e89b-12d3-a456-426614174000"),
            ],
            [
                "s": .string(""), "i": .integer(.min), "d": .double(-0.0), "b": .bool(false), "t": .date(-1e-300),
                "bin": .binary([]), "u": .null,
            ],
            ["s": .null, "i": .null, "d": .double(.greatestFiniteMagnitude), "b": .null, "t": .null, "bin": .null],
            ["d": .double(.leastNonzeroMagnitude)], ["d": .double(.infinity)], ["d": .double(1 / 3)],
        ]
        var ids: [ObjectID] = []
        for values in samples {
            let id = try store.reserveID(for: "Item")
            ids.append(id)
            try store.write(StoreBatch(inserts: [(id, values)]))
        }
        for (id, values) in zip(ids, samples) {
            let read = try #require(try store.read(id))
            for a in Self.typesModel.entities[0].attributes {
                let want = values[a.name] ?? .null
                let got = read.values[a.name] ?? .null
                if case .double(let x) = want, case .double(let y) = got {
                    #expect(x.bitPattern == y.bitPattern, "\(a.name): \(x) != \(y)")
                } else {
                    #expect(got == want, "\(a.name)")
                }
            }
        }
        // Old values in the history are exact too.
        let last = try #require(ids.first)
        try store.write(StoreBatch(updates: [(last, ["d": .double(1)])]))
        let history = try store.history(after: 0)
        let prior = try store.priorObjects(Array(history.suffix(1)))
        let before = try #require(prior[last] ?? nil)
        #expect(before.version == 1)
        for (key, value) in samples[0] {
            #expect(before.values[key] == value, "\(key)")
        }
    }

    @Test func aBulkInsertGoesInByCopyWithItsHistoryAndLinks() throws {
        let scratch = try PGScratch("pgstore_bulk")
        let store = try scratch.open()
        defer { store.close() }
        let tag = try store.reserveID(for: "Tag")
        try store.write(StoreBatch(inserts: [(tag, ["label": .string("t")])]))
        var batch = StoreBatch()
        for i in 0..<1000 {
            let values: Snapshot = [
                "name": .string("n\t\\\(i)\n"), "age": .integer(Int64(i)), "photo": .binary([UInt8(i % 256), 0, 92]),
                "tags": .objects(i % 100 == 0 ? [tag] : []),
            ]
            batch.inserts.append((try store.reserveID(for: "Contact"), values))
        }
        let start = try store.currentToken
        try store.write(batch)
        #expect(try store.count(entity: "Contact", filter: nil) == 1000)
        for (id, values) in batch.inserts.prefix(3) + batch.inserts.suffix(1) {
            #expect(try store.read(id)?.values == values.merging(["group": .null]) { a, _ in a })
        }
        #expect(try store.read(tag)?.values["contacts"]?.objectIDs.count == 10)
        let h = try store.history(after: start)
        #expect(h.count == 1)
        #expect(h[0].changes.filter { $0.operation == .insert }.count == 1000)
        #expect(h[0].rows.count < 30)
    }

    @Test func reservedIDsNeverRepeatAcrossStores() throws {
        let scratch = try PGScratch("pgstore_ids")
        let a = try scratch.open()
        let b = try scratch.open()
        defer {
            a.close()
            b.close()
        }
        var seen = Set<Int64>()
        for i in 0..<300 {
            let id = try (i % 3 == 0 ? b : a).reserveID(for: "Contact")
            #expect(seen.insert(id.number).inserted, "\(id) handed out twice")
        }
        // A plain client's insert without a number lands on a fresh one too.
        let raw = try scratch.client()
        let r = try raw.exec("INSERT INTO \"Contact\" (name, age) VALUES ('raw', 1) RETURNING _pk")
        #expect(seen.insert(r.int64(0, 0)!).inserted)
        // A number a plain client chose moves the sequence past it.
        try raw.exec("INSERT INTO \"Contact\" (_pk, name, age) VALUES (100000, 'big', 1)")
        let c = try scratch.open()
        defer { c.close() }
        #expect(try c.reserveID(for: "Contact").number > 100_000)
    }

    @Test func migrationAddsAndRemovesAttributes() throws {
        let scratch = try PGScratch("pgstore_migrate")
        let store = try scratch.open()
        try seed(store)
        store.close()
        let added = Models.adding(
            Models.contacts, to: "Contact", Attribute(name: "nick", type: .string, defaultValue: .string("none")))
        let migrated = try scratch.open(added)
        #expect(migrated.migrated)
        #expect(migrated.modelVersion == 2)
        #expect(try migrated.read(c1)?.values["nick"] == .string("none"))
        #expect(try migrated.read(c1)?.values["name"] == .string("Ana"))
        // The history records the new column.
        try migrated.write(
            StoreBatch(updates: [(c1, ["name": .string("Ana"), "nick": .string("A"), "age": .integer(30)])]))
        let last = try #require(try migrated.history(after: 0).last)
        #expect(last.changes.first?.keys?.contains("nick") == true)
        migrated.close()
        let back = try scratch.open()
        defer { back.close() }
        #expect(back.migrated)
        #expect(try back.read(c1)?.values["nick"] == nil)
        #expect(
            throws: EngineError.self,
            performing: {
                _ = try scratch.open(
                    Models.adding(Models.contacts, to: "Contact", Attribute(name: "must", type: .string)))
            })
    }

    @Test func historyRecordsOwnWritesWithToken() throws {
        let scratch = try PGScratch("pgstore_history")
        let store = try scratch.open()
        defer { store.close() }
        try seed(store)
        let seeded = try store.history(after: 0)
        #expect(seeded.count == 1)
        #expect(seeded[0].author == "seed")
        #expect(seeded[0].origin == store.origin)
        #expect(Set(seeded[0].changes.map(\.id)).isSuperset(of: [c1, g1, t1]))
        #expect(try !store.hasExternalChanges())
        try store.write(
            StoreBatch(updates: [(c1, ["name": .string("Ana"), "age": .integer(31), "tags": .objects([t1])])]))
        let update = try store.history(after: seeded[0].token)
        #expect(update.count == 1)
        #expect(update[0].changes == [HistoryChange(id: c1, operation: .update, keys: ["age", "photo", "group"])])
        #expect(try store.currentToken == update[0].token)
    }

    @Test func historyRecordsPlainClientWrites() throws {
        let scratch = try PGScratch("pgstore_plain")
        let store = try scratch.open()
        defer { store.close() }
        try seed(store)
        let start = try store.currentToken
        let raw = try scratch.client()
        try raw.exec("INSERT INTO \"Group\" (title) VALUES ('a'), ('b')")
        try raw.exec("UPDATE \"Contact\" SET age = 40 WHERE _pk = 1")
        try raw.exec("DELETE FROM \"_join_Contact_tags\"")
        try raw.exec("DELETE FROM \"Group\" WHERE title = 'a'")
        #expect(try store.hasExternalChanges())
        let h = try store.history(after: start)
        #expect(h.count == 1)
        #expect(h[0].isExternalClient)
        #expect(h[0].time != nil)
        let changes = h[0].changes
        #expect(changes.filter { $0.operation == .insert }.map(\.id.entity) == ["Group", "Group"])
        #expect(changes.contains(HistoryChange(id: c1, operation: .update, keys: ["age"])))
        #expect(changes.contains(HistoryChange(id: c1, operation: .update, keys: ["tags"])))
        #expect(changes.contains(HistoryChange(id: t1, operation: .update, keys: ["contacts"])))
        #expect(changes.last?.operation == .delete)
        #expect(try !store.hasExternalChanges())
        // The plain update bumped the version; the view before has the old one and values.
        #expect(try store.version(of: c1) == 2)
        let prior = try store.priorObjects(h)
        #expect(prior[c1]??.version == 1)
        #expect(prior[c1]??.values["age"] == .integer(30))
        #expect(prior[c1]??.values["tags"] == .objects([t1]))
        #expect(prior[t1]??.values["contacts"] == nil || prior[t1]??.values["contacts"] == .objects([c1]))
        let inserted = changes.first { $0.operation == .insert }!.id
        #expect(prior[inserted] == .some(nil))
        store.overlay = prior
        #expect(try store.read(c1)?.values["age"] == .integer(30))
        #expect(try store.read(t1)?.values["contacts"] == .objects([c1]))
        store.overlay = nil
        // A rolled-back plain write leaves nothing.
        try raw.exec("BEGIN; UPDATE \"Contact\" SET age = 50; ROLLBACK")
        #expect(try store.history(after: h[0].token).isEmpty)
    }

    @Test func purgeLeavesAGapAndKeepsTheNewestRow() throws {
        let scratch = try PGScratch("pgstore_purge")
        let store = try scratch.open()
        defer { store.close() }
        try seed(store)
        for age in 31...35 {
            try store.write(StoreBatch(updates: [(c1, ["name": .string("Ana"), "age": .integer(Int64(age))])]))
        }
        let newest = try store.currentToken
        #expect(try !store.historyGap(after: 0))
        store.mergeCursor = newest
        let deleted = try store.purgeHistory(before: newest + 10)
        #expect(deleted > 0)
        #expect(try store.oldestToken == newest)
        #expect(try store.currentToken == newest)
        #expect(try store.historyGap(after: 0))
        #expect(try !store.historyGap(after: newest - 1))
        #expect(try store.firstToken(notBefore: 0) == newest)
        try store.write(StoreBatch(updates: [(c1, ["name": .string("Ana"), "age": .integer(1)])]))
        #expect(try store.currentToken == newest + 1)
    }

    @Test func busyWhileAnotherConnectionHoldsTheLock() throws {
        let scratch = try PGScratch("pgstore_busy")
        let store = try scratch.open()
        defer { store.close() }
        try seed(store)
        let raw = try scratch.client()
        try raw.exec("BEGIN")
        try raw.exec("UPDATE \"Group\" SET title = 'held'")
        store.busyTimeout = 100
        #expect {
            try store.write(StoreBatch(updates: [(c1, ["name": .string("Busy"), "age": .integer(1)])]))
        } throws: { ($0 as? EngineError)?.kind == .storeBusy }
        #expect(!store.isWriting)
        try raw.exec("COMMIT")
        try store.write(StoreBatch(updates: [(c1, ["name": .string("Free"), "age": .integer(1)])]))
        #expect(try store.read(c1)?.values["name"] == .string("Free"))
        #expect(try store.read(g1)?.values["title"] == .string("held"))
    }

    @Test func unavailableAfterTheBackendIsTerminatedThenRecovers() throws {
        let scratch = try PGScratch("pgstore_unavailable")
        var logged: [String] = []
        let store = try PGStore.open(url: scratch.url, model: Models.contacts, schema: scratch.schema) {
            logged.append($0)
        }
        defer { store.close() }
        try seed(store)
        let raw = try scratch.client()
        try raw.exec("SELECT pg_terminate_backend(\(store.connection!.backendPID))")
        #expect {
            try store.write(StoreBatch(updates: [(c1, ["name": .string("Lost"), "age": .integer(1)])]))
        } throws: { ($0 as? EngineError)?.kind == .storeUnavailable }
        #expect(!store.isWriting)
        usleep(200_000)
        #expect(try store.read(c1)?.values["name"] == .string("Ana"))
        try store.write(StoreBatch(updates: [(c1, ["name": .string("Back"), "age": .integer(1)])]))
        #expect(try store.read(c1)?.values["name"] == .string("Back"))
        #expect(logged.contains { $0.contains("lost") })
        #expect(logged.contains { $0.contains("reconnected") })
        // Lost inside an open write: the commit answers storeUnavailable and nothing of it stays.
        try store.beginWrite(author: "lost")
        try store.write(StoreBatch(updates: [(c1, ["name": .string("Half"), "age": .integer(2)])]))
        try raw.exec("SELECT pg_terminate_backend(\(store.connection!.backendPID))")
        #expect {
            try store.commitWrite()
        } throws: { ($0 as? EngineError)?.kind == .storeUnavailable }
        #expect(!store.isWriting)
        #expect {
            try store.read(c1)
        } throws: { ($0 as? EngineError)?.kind == .storeUnavailable }
        usleep(200_000)
        #expect(try store.read(c1)?.values["name"] == .string("Back"))
        #expect(try store.history(after: 0).allSatisfy { $0.author != "lost" })
    }

    @Test func notifiesOnCommit() throws {
        let scratch = try PGScratch("pgstore_notify")
        let store = try scratch.open()
        defer { store.close() }
        let announcer = try #require(store.makeChangeAnnouncer(log: { _ in }))
        #expect(!announcer.drain())
        try seed(store)
        usleep(100_000)
        #expect(announcer.drain())
        let raw = try scratch.client()
        try raw.exec("UPDATE \"Group\" SET title = 'x'")
        usleep(100_000)
        #expect(announcer.drain())
        #expect(!announcer.drain())
    }

    @Test func urlCarriesTheSchemaAndHidesThePassword() throws {
        #expect(
            PGURL.splitSchema("postgresql://u@h/db?schema=s1&sslmode=disable") == (
                "postgresql://u@h/db?sslmode=disable", "s1"
            ))
        #expect(PGURL.splitSchema("postgresql:///db?schema=a%20b") == ("postgresql:///db", "a b"))
        #expect(
            PGURL.withoutPassword("postgresql://u:secret@h:5432/db?password=x&host=/tmp")
                == "postgresql://u@h:5432/db?host=/tmp")
    }
}

/// StoreQueryTests on a PGStore, and the same queries on a SQLite store and a PGStore holding
/// the same rows: counts, keys, aggregates and set-based writes must agree.
@Suite(.serialized) struct PGStoreQueryTests {
    func pg(_ scratch: PGScratch) -> (ObjectModel) throws -> any Store {
        { try PGStore.open(url: scratch.url, model: $0, schema: scratch.schema) }
    }

    @Test func storeQueryCasesPass() throws {
        let cases: [(String, (any Store) throws -> Void)] = [
            ("counts", StoreQueryTests.countsMatchesLeavingOutSkippedIds),
            ("keys", StoreQueryTests.keyedRowsComeInTheOrderingThenByIdNumber),
            ("window", StoreQueryTests.windowAndSkippedIdsAreCutFromTheSameOrder),
            ("unordered", StoreQueryTests.withoutAnOrderingRowsComeByIdNumberWithEmptyKeys),
            ("closed", StoreQueryTests.aClosedStoreReportsStoreClosed),
        ]
        for (name, check) in cases {
            let scratch = try PGScratch("pgstore_query_\(name)")
            let store = try StoreQueryTests.store(pg(scratch))
            try check(store)
            store.close()
        }
    }

    /// Both stores with the same rows: doubles, strings with non-ASCII text, nulls.
    static let model = ObjectModel(entities: [
        Entity(
            name: "Item",
            attributes: [
                Attribute(name: "value", type: .integer),
                Attribute(name: "label", type: .string),
                Attribute(name: "price", type: .double, optional: true),
                Attribute(name: "flag", type: .boolean),
            ])
    ])

    static func fill(_ store: any Store) throws {
        var batch = StoreBatch()
        let labels = ["b", "B", "a", "é", "Zed", "l10", "L1", "apple"]
        for i in 0..<40 {
            let id = try store.reserveID(for: "Item")
            batch.inserts.append(
                (
                    id,
                    [
                        "value": .integer(Int64((i * 7) % 11)), "label": .string(labels[i % labels.count]),
                        "price": i % 5 == 0 ? .null : .double(Double(i) * 0.1 + 1e-3 / Double(i + 1)),
                        "flag": .bool(i % 3 == 0),
                    ]
                ))
        }
        try store.write(batch)
    }

    @Test func queriesAndAggregatesAgreeWithSQLite() throws {
        let scratch = try PGScratch("pgstore_agree")
        let pg = try PGStore.open(url: scratch.url, model: Self.model, schema: scratch.schema)
        let lite = try SQLiteStore.open(model: Self.model) { try SQLFunctions.register(on: $0) }
        defer { pg.close() }
        try Self.fill(pg)
        try Self.fill(lite)
        let compiler = RequestCompiler(model: Self.model)
        let predicates: [String?] = [
            nil, "value >= 5", "label ==[c] 'b'", "price > 3 OR price == nil", "label MATCHES '(?i)l1.*'",
            "flag == YES AND value < 4",
        ]
        for p in predicates {
            let request = try compiler.compile(
                FetchRequest(
                    entity: "Item", predicate: p,
                    sortDescriptors: [SortDescriptor(key: "label"), SortDescriptor(key: "price", ascending: false)]))
            #expect(
                try pg.count(entity: "Item", filter: request.filter)
                    == lite.count(entity: "Item", filter: request.filter),
                "\(p ?? "all")")
            var a: [(Int64, SortKey)] = []
            var b: [(Int64, SortKey)] = []
            try pg.forEachKey(
                entity: "Item", filter: request.filter, ordering: request.ordering, limit: 7, offset: 2
            ) { a.append(($0, $1)) }
            try lite.forEachKey(
                entity: "Item", filter: request.filter, ordering: request.ordering, limit: 7, offset: 2
            ) { b.append(($0, $1)) }
            #expect(a.map(\.0) == b.map(\.0), "\(p ?? "all")")
            #expect(a.map(\.1) == b.map(\.1), "\(p ?? "all")")
            let functions: [(name: String, function: AggregateFunction, keyPath: String, type: AttributeType?)] = [
                ("n", .count, "price", .double), ("s", .sum, "price", .double), ("avg", .average, "value", .integer),
                ("pavg", .average, "price", .double),
                ("lo", .min, "label", .string), ("hi", .max, "price", .double), ("si", .sum, "value", .integer),
            ]
            let grouped = try pg.aggregate(
                entity: "Item", filter: request.filter, groupBy: [("flag", .boolean)], functions: functions)
            let expected = try lite.aggregate(
                entity: "Item", filter: request.filter, groupBy: [("flag", .boolean)], functions: functions)
            #expect(grouped == expected, "\(p ?? "all")")
            let all = try pg.aggregate(entity: "Item", filter: request.filter, groupBy: [], functions: functions)
            #expect(
                all == (try lite.aggregate(entity: "Item", filter: request.filter, groupBy: [], functions: functions)))
            #expect(
                try pg.readMatching(entity: "Item", filter: request.filter).map { $0.0 }
                    == lite.readMatching(entity: "Item", filter: request.filter).map { $0.0 })
        }
        // Set-based writes: the same rows change, versions go up, the history holds each row.
        let narrow = try compiler.compile(FetchRequest(entity: "Item", predicate: "label MATCHES '(?i)b'"))
        for store in [pg, lite] as [any Store] {
            try store.beginWrite(author: "batch")
            try store.updateMatching(entity: "Item", filter: narrow.filter, values: ["value": .integer(99)])
            try store.commitWrite()
            try store.beginWrite(author: "batch")
            try store.deleteMatching(
                entity: "Item",
                filter: try compiler.compile(FetchRequest(entity: "Item", predicate: "value == 0")).filter)
            try store.commitWrite()
        }
        #expect(
            try pg.readMatching(entity: "Item", filter: nil).map { [$0.0.number, $0.1.version] }
                == lite.readMatching(entity: "Item", filter: nil).map { [$0.0.number, $0.1.version] })
        let ph = try pg.history(after: 0).suffix(2)
        let lh = try lite.history(after: 0).suffix(2)
        #expect(ph.map { Set($0.changes.map(\.id)) } == lh.map { Set($0.changes.map(\.id)) })
        #expect(ph.map(\.author) == ["batch", "batch"])
    }
}

/// Writers on other connections at the same time (two stores and a plain client, each on its
/// own thread) while a reader follows the history by token: it must see every row exactly
/// once, so tokens are handed out in commit order.
@Suite(.serialized) struct PGConcurrentWriterTests {
    @Test func aReaderFollowingTokensMissesNothingWhileOthersWrite() throws {
        let scratch = try PGScratch("pgstore_concurrent")
        let reader = try scratch.open()
        defer { reader.close() }
        let url = scratch.url
        let schema = scratch.schema
        let done = Counter()
        let failures = Counter()
        let saves = 40
        for w in 0..<2 {
            Thread.detachNewThread {
                defer { done.add() }
                do {
                    let store = try PGStore.open(url: url, model: Models.contacts, schema: schema)
                    defer { store.close() }
                    store.busyTimeout = 20_000
                    for i in 0..<saves {
                        var batch = StoreBatch(author: "w\(w)")
                        for _ in 0..<(i % 3 + 1) {
                            batch.inserts.append(
                                (try store.reserveID(for: "Group"), ["title": .string("w\(w)-\(i)")]))
                        }
                        try store.write(batch)
                    }
                } catch { failures.add() }
            }
        }
        Thread.detachNewThread {
            defer { done.add() }
            do {
                let raw = try PGConnection(url)
                try raw.exec("SET search_path TO \(SchemaNaming.quoted(schema))")
                for i in 0..<saves {
                    try raw.exec("INSERT INTO \"Group\" (title) VALUES ('raw-\(i)'), ('raw-\(i)b')")
                    if i % 4 == 0 { try raw.exec("UPDATE \"Group\" SET title = title || '!' WHERE title LIKE 'raw-%'") }
                }
            } catch { failures.add() }
        }
        var token: Int64 = 0
        var seen: [Int64] = []
        var authored = 0
        while done.value < 3 {
            for t in try reader.history(after: token) {
                seen += t.rows.map(\.seq)
                token = t.token
                if t.author != nil { authored += 1 }
            }
        }
        for t in try reader.history(after: token) {
            seen += t.rows.map(\.seq)
            if t.author != nil { authored += 1 }
        }
        #expect(failures.value == 0)
        #expect(authored == 2 * saves)
        let all = try scratch.client().exec("SELECT seq FROM _fetchd_history ORDER BY seq").rows.map { Int64($0[0]!)! }
        #expect(seen == all)
        #expect(all == Array(1...Int64(all.count)))
        let perWriter = (0..<saves).reduce(0) { $0 + $1 % 3 + 1 }
        #expect(try reader.count(entity: "Group", filter: nil) == 2 * perWriter + 2 * saves)
    }
}

/// A thread-safe counter for the writer threads.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    func add() { lock.withLock { n += 1 } }
    var value: Int { lock.withLock { n } }
}

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
        let before = SQLiteStore.now()
        try other.write(StoreBatch(inserts: [(try other.reserveID(for: "Group"), ["title": .string("x")])]))
        #expect(try store.hasExternalChanges())
        let read = try store.readHistory(after: 0, limit: 10)
        #expect(read.count == 1 && read[0].origin == other.origin)
        #expect(try store.hasExternalChanges())
        #expect(try store.firstToken(notBefore: before - 1) == read[0].token)
        #expect(try store.firstToken(notBefore: SQLiteStore.now() + 60) == read[0].token + 1)
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
