import Model
import Postgres
import TestSupport
import Testing

@testable import Store

/// A bulk load into PostgreSQL (many rows, at least as many as the table holds) records its
/// run of numbers itself, with the insert trigger dropped for the COPY and made again in the
/// same transaction: the history must read as the trigger would have written it, and the
/// trigger must be there afterwards whatever happened. So must the primary key, which a
/// load drops for its COPY when no foreign key refers to the table.
@Suite(.serialized) struct PGBulkLoadTests {
    static let rows = BulkIndexPolicy.minimumRows

    private func contacts(_ numbers: [Int64], group: ObjectID? = nil) -> StoreBatch {
        var batch = StoreBatch()
        for n in numbers {
            let values: Snapshot = [
                "name": .string("c\(n)"), "age": .integer(n % 90), "group": group.map(Value.object) ?? .null,
            ]
            batch.inserts.append((ObjectID(entity: "Contact", number: n), values))
        }
        return batch
    }

    /// The history rows of the transaction `token` as (op, pk, other).
    private func recorded(_ raw: PGConnection, after token: Int64) throws -> [[String?]] {
        try raw.exec(
            "SELECT op, pk::text, other::text FROM \"_fetchd_history\" WHERE seq > \(token) AND entity = 'Contact' ORDER BY seq"
        ).rows
    }

    /// What the history says of a plain client's insert: one insert by an external client
    /// when the insert trigger is in place.
    private func plainInsertRecorded(_ store: PGStore, _ raw: PGConnection) throws -> [String] {
        let before = try store.currentToken
        try raw.exec("INSERT INTO \"Contact\" (name, age) VALUES ('plain', 1)")
        return try store.history(after: before).map { t in
            (t.isExternalClient ? "plain " : "fetchd ") + t.changes.map { "\($0.operation)" }.joined(separator: ",")
        }
    }

    /// `body` on a store on a fresh schema and a plain client on it; then, whatever the body
    /// did, the insert trigger must be in place: a plain client's insert is recorded.
    private func withStore(_ name: String, _ body: (PGStore, PGConnection) throws -> Void) throws {
        let scratch = try PGScratch(name)
        let store = try scratch.open()
        defer { store.close() }
        let raw = try scratch.client()
        try body(store, raw)
        let plain = try plainInsertRecorded(store, raw)
        #expect(plain == ["plain insert"])
        #expect(try primaryKeys(raw) == ["Contact_pkey", "Group_pkey"])
    }

    /// The primary key constraints of the schema's entity tables, by name.
    private func primaryKeys(_ raw: PGConnection) throws -> [String] {
        try raw.exec(
            """
            SELECT conname FROM pg_constraint WHERE contype = 'p' AND conrelid IN ('"Contact"'::regclass, '"Group"'::regclass)
            ORDER BY conname
            """
        ).rows.map { $0[0] ?? "" }
    }

    @Test func aRunIsRecordedAsOneRowAndTheTriggerIsBack() throws {
        try withStore("pgbulk_run") { store, raw in
            let numbers = try store.reserveIDs(for: "Contact", count: Self.rows)
            let start = try store.currentToken
            try store.write(contacts(Array(numbers)))
            #expect(try store.count(entity: "Contact", filter: nil) == Self.rows)
            #expect(
                try recorded(raw, after: start) == [["I", String(numbers.lowerBound), String(numbers.upperBound - 1)]])
            let h = try store.history(after: start)
            #expect(h.count == 1)
            #expect(!h[0].isExternalClient)
            #expect(h[0].changes.count == Self.rows)
            #expect(h[0].changes.allSatisfy { $0.operation == .insert })
            #expect(try store.read(ObjectID(entity: "Contact", number: numbers.lowerBound + 7))?.values["age"] != nil)
            // The primary key made again holds: a number the load wrote is refused.
            #expect(throws: PGError.self) {
                try raw.exec("INSERT INTO \"Contact\" (\"_pk\", name) VALUES (\(numbers.lowerBound), 'again')")
            }
        }
    }

    /// Tables another's foreign key refers to keep their primary key through a load (it
    /// cannot go while a constraint needs it): Contact (the tags join table) and Group
    /// (Contact.group). One nothing refers to loses it for the COPY and has it back after.
    static let notes = ObjectModel(entities: [
        Entity(name: "Note", attributes: [Attribute(name: "text", type: .string, optional: true)])
    ])

    @Test func onlyATableNoForeignKeyNeedsLosesItsPrimaryKeyForTheCopy() throws {
        try withStore("pgbulk_keys") { store, _ in
            let c = try store.db()
            #expect(try store.droppablePrimaryKey(c, "Contact") == nil)
            #expect(try store.droppablePrimaryKey(c, "Group") == nil)
        }
        let scratch = try PGScratch("pgbulk_notes")
        let store = try scratch.open(Self.notes)
        defer { store.close() }
        let raw = try scratch.client()
        #expect(try store.droppablePrimaryKey(try store.db(), "Note") == "Note_pkey")
        func notes(_ numbers: some Sequence<Int64>) -> StoreBatch {
            var batch = StoreBatch()
            for n in numbers { batch.inserts.append((ObjectID(entity: "Note", number: n), ["text": .string("n\(n)")])) }
            return batch
        }
        let first = try store.reserveIDs(for: "Note", count: Self.rows)
        try store.write(notes(first))
        #expect(try store.count(entity: "Note", filter: nil) == Self.rows)
        func noteKey() throws -> [String?] {
            try raw.exec("SELECT conname FROM pg_constraint WHERE contype = 'p' AND conrelid = '\"Note\"'::regclass")
                .rows
                .map { $0[0] }
        }
        #expect(try noteKey() == ["Note_pkey"])
        #expect(throws: PGError.self) {
            try raw.exec("INSERT INTO \"Note\" (\"_pk\", text) VALUES (\(first.lowerBound), 'again')")
        }
        // A second load (the table holds no more rows than it brings) with a number already
        // taken: the COPY takes it, the key made again after refuses it, and the rollback
        // leaves the rows, the key and the trigger as they were.
        let second = try store.reserveIDs(for: "Note", count: Self.rows)
        let start = try store.currentToken
        #expect(throws: EngineError.self) { try store.write(notes(Array(second.dropLast()) + [first.lowerBound])) }
        #expect(try store.count(entity: "Note", filter: nil) == Self.rows)
        #expect(try noteKey() == ["Note_pkey"])
        #expect(try store.history(after: start).isEmpty)
        try raw.exec("INSERT INTO \"Note\" (text) VALUES ('plain')")
        #expect(try store.history(after: start).map(\.isExternalClient) == [true])
    }

    @Test func scatteredNumbersAreLeftToTheTrigger() throws {
        try withStore("pgbulk_scattered") { store, raw in
            let reserved = try store.reserveIDs(for: "Contact", count: Self.rows + 1)
            // One number skipped in the middle: two runs, as the trigger finds them.
            let middle = reserved.lowerBound + Int64(Self.rows / 2)
            let start = try store.currentToken
            try store.write(contacts(reserved.filter { $0 != middle }))
            #expect(
                try recorded(raw, after: start) == [
                    ["I", String(reserved.lowerBound), String(middle - 1)],
                    ["I", String(middle + 1), String(reserved.upperBound - 1)],
                ])
        }
    }

    @Test func aLoadRefusedDuringItsCopyLeavesNothingAndKeepsTheTrigger() throws {
        try withStore("pgbulk_failed") { store, raw in
            let numbers = try store.reserveIDs(for: "Contact", count: Self.rows)
            // The run's last number already taken: the COPY fails on the primary key while the
            // trigger is dropped, and the rollback must bring it back.
            try store.write(contacts([numbers.upperBound - 1]))
            let start = try store.currentToken
            #expect(throws: EngineError.self) { try store.write(contacts(Array(numbers))) }
            #expect(try store.count(entity: "Contact", filter: nil) == 1)
            #expect(try recorded(raw, after: start).isEmpty)
        }
    }
}
