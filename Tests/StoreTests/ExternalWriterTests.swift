import Model
import SQLite
import TestSupport
import Testing

@testable import Store

/// Two fetchd stores and plain SQLite connections (no fetchd functions registered) on one
/// file: what the history records, versions, ids and the write lock.
@Suite struct ExternalWriterTests {
    let dir = TempDir()
    var file: String { dir.file("shared.sqlite") }

    func plain(recursiveTriggers: Bool = true) throws -> Connection {
        let db = try Connection(path: file)
        try db.execute(
            "PRAGMA busy_timeout=2000; PRAGMA foreign_keys=ON; PRAGMA recursive_triggers=\(recursiveTriggers ? "ON" : "OFF")"
        )
        return db
    }

    func scalar(_ db: Connection, _ sql: String) throws -> Int64? {
        let s = try db.prepareUncached(sql)
        guard try s.step(), !s.isNull(0) else { return nil }
        return s.int64(0)
    }

    func ops(_ txns: [HistoryTransaction]) -> [String] {
        txns.flatMap {
            $0.changes.map {
                "\($0.operation.rawValue) \($0.id)" + ($0.keys.map { " " + $0.joined(separator: ",") } ?? "")
            }
        }
    }

    @Test func plainWritesAreRecordedAndBumpVersions() throws {
        let store = try SQLiteStore.open(path: file, model: Models.contacts)
        let g = try store.reserveID(for: "Group")
        try store.write(StoreBatch(inserts: [(g, ["title": .string("A")])], author: "editor"))
        let start = try store.currentToken
        #expect(try !store.hasExternalChanges())

        let raw = try plain()
        try raw.execute("INSERT INTO \"Contact\" (name, age, \"group\") VALUES ('Ana', 30, \(g.number))")
        let c = ObjectID(entity: "Contact", number: raw.lastInsertRowID)
        try raw.execute("UPDATE \"Contact\" SET age = 31 WHERE _pk = \(c.number)")
        #expect(try store.hasExternalChanges())
        #expect(try store.version(of: c) == 2)
        // A writer that bumps the version itself is not bumped twice.
        try raw.execute("UPDATE \"Contact\" SET name = 'Ana B', _version = _version + 1 WHERE _pk = \(c.number)")
        #expect(try store.version(of: c) == 3)
        try raw.execute("DELETE FROM \"Contact\" WHERE _pk = \(c.number)")

        let txns = try store.history(after: start)
        #expect(txns.count == 1)
        #expect(txns[0].isExternalClient && txns[0].author == nil && txns[0].time != nil)
        // recursive_triggers is on: the version bump fires the update trigger once more (no keys).
        #expect(ops(txns) == ["I \(c)", "U \(c) age", "U \(c) ", "U \(c) name", "D \(c)"])
        #expect(txns[0].token == (try store.currentToken))
        #expect(try !store.hasExternalChanges())
        #expect(try store.history(after: txns[0].token).isEmpty)

        // fetchd's own transaction: its author and origin, one version step.
        let first = try store.history(after: 0)[0]
        #expect(first.author == "editor" && first.origin == store.origin)
        #expect(ops([first]) == ["I \(g)"])
    }

    @Test func fetchdUpdatesRecordChangedKeysOnceWithoutRecursion() throws {
        let store = try SQLiteStore.open(path: file, model: Models.contacts)
        let c = try store.reserveID(for: "Contact")
        let t = try store.reserveID(for: "Tag")
        try store.write(
            StoreBatch(inserts: [(c, ["name": .string("Ana"), "age": .integer(1)]), (t, ["label": .string("x")])]))
        let start = try store.currentToken
        try store.write(
            StoreBatch(updates: [(c, ["name": .string("Ana"), "age": .integer(2), "tags": .objects([t])])]))
        #expect(try store.version(of: c) == 2)
        let txns = try store.history(after: start)
        #expect(txns.count == 1 && txns[0].origin == store.origin)
        #expect(ops(txns) == ["U \(c) age", "U \(c) tags", "U \(t) contacts"])
    }

    @Test(arguments: [true, false])
    func replaceIsRecordedAndContinuesTheVersion(recursiveTriggers: Bool) throws {
        let store = try SQLiteStore.open(path: file, model: Models.contacts)
        let c = try store.reserveID(for: "Contact")
        try store.write(StoreBatch(inserts: [(c, ["name": .string("Ana"), "age": .integer(1)])]))
        try store.write(StoreBatch(updates: [(c, ["name": .string("Ana"), "age": .integer(2)])]))
        let start = try store.currentToken
        let raw = try plain(recursiveTriggers: recursiveTriggers)
        try raw.execute("INSERT OR REPLACE INTO \"Contact\" (_pk, name, age) VALUES (\(c.number), 'Bo', 7)")
        #expect(try store.read(c)?.values["name"] == .string("Bo"))
        // Past the old row's version 2, so a context that read version 2 sees a conflict.
        #expect(try store.version(of: c)! > 2)
        let kinds = ops(try store.history(after: start))
        #expect(kinds.first == "D \(c)" && kinds.contains("I \(c)"))
    }

    @Test func rolledBackPlainWriteIsNeverSeen() throws {
        let store = try SQLiteStore.open(path: file, model: Models.contacts)
        let start = try store.currentToken
        let raw = try plain()
        try raw.execute("BEGIN; INSERT INTO \"Tag\" (label) VALUES ('gone'); ROLLBACK")
        #expect(try store.history(after: start).isEmpty)
        try raw.execute("INSERT INTO \"Tag\" (label) VALUES ('kept')")
        let txns = try store.history(after: start)
        #expect(txns.count == 1 && txns[0].changes.count == 1)
        #expect(try store.read(txns[0].changes[0].id)?.values["label"] == .string("kept"))
    }

    @Test func idsNeverCollideAndAreNeverReused() throws {
        let a = try SQLiteStore.open(path: file, model: Models.contacts)
        let b = try SQLiteStore.open(path: file, model: Models.contacts)
        let raw = try plain()
        var used: Set<Int64> = []
        var rng = SplitMix64(seed: 11)
        for step in 0..<300 {
            switch rng.next() % 5 {
            case 0:
                try raw.execute("INSERT INTO \"Tag\" (label) VALUES ('raw\(step)')")
                #expect(used.insert(raw.lastInsertRowID).inserted)
            case 3:
                // A bulk load's run, between single reservations of the same stores.
                let range = try (rng.next() % 2 == 0 ? a : b).reserveIDs(for: "Tag", count: Int(rng.next() % 50))
                for n in range { #expect(used.insert(n).inserted, "Tag/\(n) handed out twice") }
            case 1, 2:
                let store = rng.next() % 2 == 0 ? a : b
                let id = try store.reserveID(for: "Tag")
                #expect(used.insert(id.number).inserted)
                // Some reserved ids are discarded, never written.
                if rng.next() % 3 != 0 { try store.write(StoreBatch(inserts: [(id, ["label": .string("f\(step)")])])) }
            default:
                // Deleting the newest row must not give its number back.
                try raw.execute("DELETE FROM \"Tag\" WHERE _pk = (SELECT max(_pk) FROM \"Tag\")")
            }
        }
        #expect(try scalar(raw, "SELECT count(*) FROM \"Tag\"")! > 0)
    }

    @Test func plainInsertAfterAReservationLandsAboveTheBlock() throws {
        let store = try SQLiteStore.open(path: file, model: Models.contacts)
        let raw = try plain()
        // The store reserved Tag/1-48 at open (ids ahead of need): a plain insert lands above.
        try raw.execute("INSERT INTO \"Tag\" (label) VALUES ('first')")
        #expect(raw.lastInsertRowID == 49)
        let reserved = try store.reserveID(for: "Tag")
        #expect(reserved.number == 1)
        try raw.execute("INSERT INTO \"Tag\" (label) VALUES ('second')")
        let rawID = raw.lastInsertRowID
        // The rest of the block stays fetchd's: every id it hands out later is free.
        var mine: [Int64] = [reserved.number]
        for _ in 0..<40 { mine.append(try store.reserveID(for: "Tag").number) }
        #expect(!mine.contains(rawID))
        try store.write(
            StoreBatch(inserts: mine.map { (ObjectID(entity: "Tag", number: $0), ["label": .string("f")]) }))
        #expect(try scalar(raw, "SELECT count(*) FROM \"Tag\"") == 43)
    }

    @Test func heldWriteLockIsStoreBusyThenWritesAgain() throws {
        let store = try SQLiteStore.open(path: file, model: Models.contacts)
        store.busyTimeout = 50
        let t = try store.reserveID(for: "Tag")
        let raw = try plain()
        try raw.execute("BEGIN IMMEDIATE")
        let error = engineError { try store.write(StoreBatch(inserts: [(t, ["label": .string("x")])])) }
        #expect(error?.kind == .storeBusy)
        #expect(!store.isWriting)
        try raw.execute("COMMIT")
        try store.write(StoreBatch(inserts: [(t, ["label": .string("x")])]))
        #expect(try store.read(t)?.values["label"] == .string("x"))
    }

    @Test func migrationRemakesTheTriggersForTheNewColumns() throws {
        do {
            let s = try SQLiteStore.open(path: file, model: Models.contacts)
            s.close()
        }
        var entities = Models.contacts.entities
        entities[0].attributes.removeAll { $0.name == "photo" }
        entities[0].attributes.append(Attribute(name: "nick", type: .string, optional: true))
        let model = ObjectModel(entities: entities)
        let store = try SQLiteStore.open(path: file, model: model)
        #expect(store.migrated)
        let start = try store.currentToken
        let raw = try plain(recursiveTriggers: false)
        try raw.execute("INSERT INTO \"Contact\" (name, age) VALUES ('A', 1)")
        try raw.execute("UPDATE \"Contact\" SET nick = 'a' WHERE _pk = \(raw.lastInsertRowID)")
        let c = ObjectID(entity: "Contact", number: raw.lastInsertRowID)
        #expect(ops(try store.history(after: start)) == ["I \(c)", "U \(c) nick"])
        let db = try store.connection
        #expect(
            try scalar(db, "SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name LIKE '_fetchd_trg_%'")
                == Int64(HistorySchema.triggers(model).count))
    }

    @Test func openingAStoreWithoutHistoryInstallsIt() throws {
        // The layout before history: tables without AUTOINCREMENT, counters in the metadata.
        do {
            let db = try Connection(path: file)
            try db.execute("PRAGMA journal_mode=WAL")
            try db.execute("CREATE TABLE \"_fetchd_metadata\" (key TEXT PRIMARY KEY, value)")
            try db.prepareUncached(
                "INSERT INTO \"_fetchd_metadata\" VALUES ('model', ?), ('modelVersion', 1), ('next:Contact', 5)"
            )
            .run([.text(ModelArchive.encode(Models.contacts))])
            for sql in Schema.create(Models.contacts) {
                try db.execute(sql.replacingOccurrences(of: "PRIMARY KEY AUTOINCREMENT", with: "PRIMARY KEY"))
            }
            try db.execute("INSERT INTO \"Group\" (_pk, title) VALUES (1, 'G')")
            try db.execute("INSERT INTO \"Contact\" (_pk, name, age, \"group\") VALUES (3, 'Ana', 1, 1)")
            try db.execute("INSERT INTO \"Tag\" (_pk, label) VALUES (1, 't')")
            try db.execute("INSERT INTO \"_join_Contact_tags\" (a, b) VALUES (3, 1)")
        }
        let store = try SQLiteStore.open(path: file, model: Models.contacts)
        #expect(!store.migrated)
        let c3 = ObjectID(entity: "Contact", number: 3)
        #expect(try store.read(c3)?.values["tags"] == .objects([ObjectID(entity: "Tag", number: 1)]))
        #expect(try store.read(c3)?.values["group"] == .object(ObjectID(entity: "Group", number: 1)))
        // The saved counter (5) is kept: 4 was handed out before.
        #expect(try store.reserveID(for: "Contact").number == 5)
        let db = try store.connection
        #expect(
            try scalar(db, "SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name LIKE '_fetchd_trg_%'")
                == Int64(HistorySchema.triggers(Models.contacts).count))
        #expect(
            try scalar(db, "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = '_idx_Contact_age'") == 1
        )
        let start = try store.currentToken
        try plain(recursiveTriggers: false).execute("UPDATE \"Contact\" SET age = 2 WHERE _pk = 3")
        #expect(ops(try store.history(after: start)) == ["U \(c3) age"])
        #expect(try store.version(of: c3) == 2)
        store.close()
        // Opening again changes nothing.
        let again = try SQLiteStore.open(path: file, model: Models.contacts)
        #expect(try again.reserveID(for: "Contact").number == 6)
    }
}

/// The EngineError `body` throws, or nil when it succeeds.
func engineError(_ body: () throws -> Void) -> EngineError? {
    do {
        try body()
        return nil
    } catch let e as EngineError { return e } catch {
        return EngineError(EngineError.Kind("unexpected"), "\(error)")
    }
}
