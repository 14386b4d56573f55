import Model
import Postgres
import TestSupport
import Testing

@testable import Store

/// A bulk load into PostgreSQL (many rows, at least as many as the table holds) records its
/// run of numbers itself, with the insert trigger dropped for the COPY and made again in the
/// same transaction: the history must read as the trigger would have written it, and the
/// trigger must be there afterwards whatever happened.
@Suite(.serialized) struct PGBulkLoadTests {
    static let rows = SQLiteStore.bulkIndexRebuild

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
        }
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
