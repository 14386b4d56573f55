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

@Suite(.serialized) struct PGStoreTests {
    let c1 = StoreRoundTrip.c1
    let g1 = StoreRoundTrip.g1
    let t1 = StoreRoundTrip.t1

    private func seed(_ store: PGStore) throws { try StoreRoundTrip.seed(store, author: "seed") }

    @Test func writesAndReadsObjectsWithRelationships() throws {
        let scratch = try PGScratch("pgstore_rw")
        let store = try scratch.open()
        defer { store.close() }
        try StoreRoundTrip.writesAndReadsObjectsWithRelationships(store)
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

    /// The COPY path's own text (integers written digit by digit, strings escaped as bytes)
    /// reads back exactly: every type and every character class COPY treats specially.
    @Test func everyTypeRoundTripsExactlyThroughCopy() throws {
        let scratch = try PGScratch("pgstore_copy_types")
        let store = try scratch.open(Self.typesModel)
        defer { store.close() }
        let strings = [
            "", "plain", "\\", "\\N", "\t", "\n", "\r", "\r\n", "a\tb\\c\nd", "\\\\x", "tab\t", "\u{1}\u{7f}",
            "é 🌍 \"q\" 'x'", "\\.", ".", "\\N\t\\N",
        ]
        let ints: [Int64] = [0, -1, 1, 9, 10, -10, .max, .min, 1_234_567_890]
        var batch = StoreBatch()
        for i in 0..<(PGStore.copyThreshold + 44) {
            let values: Snapshot = [
                "s": i % 17 == 16 ? .null : .string(strings[i % strings.count]),
                "i": i % 13 == 12 ? .null : .integer(ints[i % ints.count] &+ Int64(i / ints.count)),
                "d": .double([0.1 + 0.2, -0.0, .infinity, .leastNonzeroMagnitude, 1 / 3][i % 5]),
                "b": i % 7 == 6 ? .null : .bool(i % 2 == 0), "t": .date(Double(i) * 1.5),
                "bin": i % 11 == 10 ? .null : .binary([UInt8(i % 256), 0, 9, 10, 13, 92]),
                "u": i % 3 == 0 ? .null : .uuid("123e4567-e89b-12d3-a456-4266141740\(String(format: "%02d", i % 100))"),
            ]
            batch.inserts.append((try store.reserveID(for: "Item"), values))
        }
        try store.write(batch)
        for (id, values) in batch.inserts {
            let read = try #require(try store.read(id))
            for a in Self.typesModel.entities[0].attributes {
                let want = values[a.name] ?? .null
                let got = read.values[a.name] ?? .null
                if case .double(let x) = want, case .double(let y) = got {
                    #expect(x.bitPattern == y.bitPattern, "\(id) \(a.name): \(x) != \(y)")
                } else {
                    #expect(got == want, "\(id) \(a.name)")
                }
            }
        }
    }

    /// A value its column cannot take (the checks before a store write never let one
    /// through) fails the COPY naming the object and key, and writes nothing.
    @Test func aValueItsColumnCannotTakeFailsTheCopy() throws {
        let scratch = try PGScratch("pgstore_copy_unfit")
        let store = try scratch.open(Self.typesModel)
        defer { store.close() }
        var batch = StoreBatch()
        for i in 0..<PGStore.copyThreshold {
            batch.inserts.append((try store.reserveID(for: "Item"), ["i": i == 7 ? .string("7") : .integer(Int64(i))]))
        }
        let error = #expect(throws: EngineError.self) { try store.write(batch) }
        #expect(error?.kind == .storeError)
        #expect(error?.detail("key") == .string("i"))
        #expect(error?.detail("id") == .string(batch.inserts[7].0.description))
        #expect(try store.count(entity: "Item", filter: nil) == 0)
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
            // A bulk load's run now and then, from either store.
            guard i % 50 == 7 else { continue }
            let range = try (i % 100 == 7 ? a : b).reserveIDs(for: "Contact", count: i)
            #expect(range.count == i)
            for n in range { #expect(seen.insert(n).inserted, "Contact/\(n) handed out twice") }
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

    @Test func notifiesOnOtherWritersCommitsNotItsOwn() throws {
        let scratch = try PGScratch("pgstore_notify")
        let store = try scratch.open()
        let other = try scratch.open()
        defer {
            store.close()
            other.close()
        }
        let announcer = try #require(store.makeChangeAnnouncer(log: { _ in }))
        #expect(!announcer.drain())
        try seed(store)
        usleep(100_000)
        #expect(!announcer.drain())
        try other.write(StoreBatch(inserts: [(try other.reserveID(for: "Group"), ["title": .string("o")])]))
        usleep(100_000)
        #expect(announcer.drain())
        let raw = try scratch.client()
        try raw.exec("UPDATE \"Group\" SET title = 'x'")
        usleep(100_000)
        #expect(announcer.drain())
        #expect(!announcer.drain())
    }

    /// The settings protocol.md lists for fetchd's sessions ("Sessions").
    @Test func sessionsCarryTheDocumentedSettings() throws {
        let scratch = try PGScratch("pgstore_session")
        let store = try scratch.open()
        defer { store.close() }
        let c = try store.db()
        var got: [String?] = []
        for name in ["search_path", "extra_float_digits", "bytea_output", "parallel_tuple_cost"] {
            got.append(try c.exec("SHOW \(name)").rows.first?.first ?? nil)
        }
        #expect(got == [scratch.schema, "3", "hex", "0.01"])
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
