import Contexts
import Model
import Predicates
import SQLite
import Store
import TestSupport
import Testing

@testable import Controllers

/// A plain client writing against the model: each kind is merged as far as valid, reported
/// with the offending ids, and the controllers' mirrors still equal fresh fetches.
@Suite struct BadExternalDataTests {
    /// Runs `sql` as a plain client (foreign keys off, as the sqlite3 shell and Python's
    /// module default), merges, and returns what the merge reported.
    static func merge(_ sql: String) throws -> (ObjectGraph.ExternalMerge, HistoryPruningTests.Setup) {
        let s = try HistoryPruningTests.Setup()
        try s.raw.execute("PRAGMA foreign_keys=OFF")
        try s.raw.execute(sql)
        let merged = try s.reader.mergeExternalTransactions()
        try s.expectMirrorsFresh(sql)
        #expect(merged.transactions.count == 1)
        return (merged, s)
    }

    static func book(_ s: HistoryPruningTests.Setup) throws -> Int64 {
        let q = try s.raw.prepareUncached("SELECT max(_pk) FROM Book")
        _ = try q.step()
        return q.int64(0)
    }

    @Test func nullInARequiredAttribute() throws {
        let (m, s) = try Self.merge("UPDATE Book SET title = NULL WHERE _pk = (SELECT min(_pk) FROM Book)")
        #expect(m.invalid.map(\.key) == ["title"])
        #expect(m.invalid.first?.problem == "required value missing")
        let id = try #require(m.invalid.first?.id)
        // Merged as stored: the object shows the null.
        #expect(try s.reader.context("main").object(id)?["title"] == .null)
    }

    @Test func textInAnIntegerColumnShowsAsStoredAndAConvertibleOneAsItsNumber() throws {
        let (m, s) = try Self.merge(
            "INSERT INTO Book (title, price, year, flag, note) VALUES ('Bad', 'cheap', '2003', 1, 'n')")
        // '2003' was converted by the column's affinity; 'cheap' could not be.
        #expect(m.invalid.map(\.key) == ["price"])
        #expect(m.invalid.first?.problem == "expected integer, found text")
        let id = ObjectID(entity: "Book", number: try Self.book(s))
        let values = try #require(try s.reader.context("main").object(id))
        #expect(values["price"] == .string("cheap"))
        #expect(values["year"] == .integer(2003))
    }

    @Test func aHugeRealInAnIntegerColumnIsNoCrash() throws {
        let (m, s) = try Self.merge(
            "INSERT INTO Book (title, price, year, flag, note) VALUES ('Huge', 1e300, 2001, 0, 'n')")
        #expect(m.invalid.map(\.key) == ["price"])
        let id = ObjectID(entity: "Book", number: try Self.book(s))
        #expect(try s.reader.context("main").object(id)?["price"] == .double(1e300))
    }

    @Test func aDanglingReference() throws {
        let (m, s) = try Self.merge(
            "INSERT INTO Book (title, price, year, flag, note, author) VALUES ('Lost', 3, 2002, 0, 'n', 9999)")
        #expect(m.invalid.map(\.key) == ["author"])
        #expect(m.invalid.first?.problem == "refers to Author/9999, which does not exist")
        // The context keeps its own data: it still saves its own changes.
        let main = try s.reader.context("main")
        _ = try main.insert("Author", ["name": .string("New"), "rank": .integer(3)])
        try main.save()
    }

    @Test func aRowOfAnEntityTheModelDoesNotHave() throws {
        // A plain client writes the history of a table fetchd does not know (as an older or
        // newer model's triggers would): reported, never merged.
        let (m, _) = try Self.merge(
            "INSERT INTO Book (title, price, year, flag, note) VALUES ('Ok', 1, 2001, 0, 'n');"
                + "INSERT INTO _fetchd_history (txn, time, entity, pk, op) VALUES (NULL, 0, 'Ghost', 7, 'I')")
        #expect(
            m.invalid == [
                InvalidValue(
                    id: ObjectID(entity: "Ghost", number: 7), key: nil, problem: "entity Ghost is not in the model")
            ])
        #expect(m.transactions.first?.changes.allSatisfy { $0.id.entity == "Book" } == true)
    }
}
