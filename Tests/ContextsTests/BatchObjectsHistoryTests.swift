import Model
import SQLite
import Store
import TestSupport
import Testing

@testable import Contexts

/// `store/batchUpdateObjects` writes each history row from what it read of the row
/// (`PriorHistory`) instead of reading the row again: the rows and history must come out as
/// when the store reads what it records, bad data from a plain client included (a boolean
/// stored as 2 and a reference stored as text compare as stored, not as read back).
@Suite struct BatchObjectsHistoryTests {
    typealias Twin = BatchInSQLTests

    static func msg(_ n: Int64) -> ObjectID { ObjectID(entity: "Msg", number: n) }

    /// The rows and the history of the file (not the transactions: a batch's author is not a
    /// save's).
    static func rowsAndHistory(_ path: String) throws -> [[SQLValue]] {
        let dump = try Twin.dump(path)
        let ends = dump.indices.filter { dump[$0] == [.text("--")] }
        return Array(dump[..<ends[1]])
    }

    static func difference(_ a: [[SQLValue]], _ b: [[SQLValue]]) -> String {
        zip(a, b).first { $0 != $1 }.map { "\($0) != \($1)" } ?? "\(a.count) != \(b.count)"
    }

    /// Against a context's updates and save on a copy of the store: values that differ from
    /// the rows as read (a stored 2 set to false, a reference stored as text set to a team),
    /// text that JSON escapes, doubles, and a row given the values it holds.
    @Test func aBatchRecordsWhatASaveRecords() throws {
        let dir = TempDir()
        let (batchPath, savePath) = (dir.file("batch.sqlite"), dir.file("save.sqlite"))
        try Twin.makeStore(batchPath)
        try Twin.makeStore(savePath)
        let batch = ObjectGraph(store: try Twin.open(batchPath))
        let ts6 = try batch.context(ObjectGraph.mainContext).object(Self.msg(6))?["ts"] ?? .null
        let team = Value.object(ObjectID(entity: "Team", number: 1))
        let updates: [(ObjectID, Snapshot)] = [
            (Self.msg(14), ["flag": .bool(false), "ts": .integer(3)]),
            (Self.msg(11), ["team": team, "ts": .integer(98)]),
            (Self.msg(3), ["body": .string("quote \" back\\slash\nline \u{e9} \u{1}"), "ts": .integer(7)]),
            (Self.msg(4), ["score": .double(0.1), "ts": .integer(8)]),
            (Self.msg(5), ["score": .null, "ts": .integer(9)]),
            (Self.msg(6), ["ts": ts6]),
        ]
        #expect(try batch.batchUpdate("Msg", objects: updates) == updates.count)
        batch.close()
        let save = ObjectGraph(store: try Twin.open(savePath))
        let main = try save.context(ObjectGraph.mainContext)
        for (id, values) in updates { try main.update(id, values) }
        try main.save()
        save.close()
        let (a, b) = (try Self.rowsAndHistory(batchPath), try Self.rowsAndHistory(savePath))
        let same = a == b
        #expect(same, "\(Self.difference(a, b))")
        #expect(a.count > 100 + updates.count - 1)
    }

    /// The same batch written with what was read and without it (the store reading what it
    /// records) leaves the same rows and history, where the values read back differ from the
    /// stored ones: true on a stored 2, null on a team stored as 'none'.
    @Test func theKeysCompareTheStoredValues() throws {
        let dir = TempDir()
        var histories: [[[SQLValue]]] = []
        for (n, kept) in [true, false].enumerated() {
            let path = dir.file("s\(n).sqlite")
            try Twin.makeStore(path)
            let store = try Twin.open(path)
            let keys = ["flag", "team", "ts"]
            try store.beginWrite(author: nil)
            let (rows, prior) = try store.readNumbered(entity: "Msg", numbers: [22, 7, 14, 11], keepingHistoryOf: keys)
            // The set columns in the table's order.
            #expect(prior?.count == 4 && prior?.columns == ["ts", "flag", "team"])
            var values: [Int64: Snapshot] = [
                7: ["flag": .bool(true), "ts": .integer(1)], 14: ["flag": .bool(true), "ts": .integer(2)],
                11: ["team": .null, "ts": .integer(3)], 22: ["team": .null, "ts": .integer(4)],
            ]
            var batch = StoreBatch(
                updates: rows.map { id, row in (id, row.values.merging(values.removeValue(forKey: id.number)!) { $1 }) }
            )
            batch.updatedKeys = keys
            batch.priorHistory = kept ? prior : nil
            try store.write(batch)
            try store.commitWrite()
            store.close()
            histories.append(try Self.rowsAndHistory(path))
        }
        let same = histories[0] == histories[1]
        #expect(same, "\(Self.difference(histories[0], histories[1]))")
        // The batch's history rows (the last four) list flag and team where the stored values
        // were 2 and 'none', though they read back as the values set.
        let keyed = histories[0].filter { $0.count == 10 && $0[5] == .text("U") }.suffix(4).map { ($0[4], $0[6]) }
        #expect(keyed.count == 4)
        for (pk, keys) in keyed {
            guard case .integer(let n) = pk, case .text(let k) = keys else { continue }
            #expect(k == (n % 7 == 0 ? "ts,flag" : "ts,team"), "row \(n): \(k)")
        }
    }

    /// What the store was given is what it records: no second read of the row.
    @Test func theHistoryIsWrittenFromWhatWasRead() throws {
        let dir = TempDir()
        let path = dir.file("s.sqlite")
        try Twin.makeStore(path)
        let store = try Twin.open(path)
        try store.beginWrite(author: nil)
        let (rows, prior) = try store.readNumbered(entity: "Msg", numbers: [3], keepingHistoryOf: ["ts"])
        var given = PriorHistory(entity: "Msg", columns: ["ts"])
        given.append(version: 41, old: "[\"as read\"]", stored: [prior!.stored(0, 0)])
        var batch = StoreBatch(updates: [(rows[0].0, rows[0].1.values.merging(["ts": .integer(-1)]) { $1 })])
        batch.updatedKeys = ["ts"]
        batch.priorHistory = given
        try store.write(batch)
        try store.commitWrite()
        store.close()
        let db = try Connection(path: path)
        defer { db.close() }
        let s = try db.prepare("SELECT version, old, keys FROM \"_fetchd_history\" WHERE op = 'U' ORDER BY seq DESC")
        defer { s.reset() }
        #expect(try s.step())
        #expect(s.int64(0) == 41 && s.text(1) == "[\"as read\"]" && s.text(2) == "ts")
    }

    /// Rows by number: in any order, given twice or missing, read once each, ascending.
    @Test func numberedRowsAreReadOnceInOrder() throws {
        let dir = TempDir()
        try Twin.makeStore(dir.file("s.sqlite"))
        let store = try Twin.open(dir.file("s.sqlite"))
        defer { store.close() }
        let numbers: [Int64] = [9, 3, 9, 1000, -1, 4]
        #expect(try store.readNumbered(entity: "Msg", numbers: numbers).map(\.0.number) == [3, 4, 9])
        try store.beginWrite(author: nil)
        let (rows, prior) = try store.readNumbered(entity: "Msg", numbers: numbers, keepingHistoryOf: ["body"])
        store.rollbackWrite()
        #expect(rows.map(\.0.number) == [3, 4, 9] && prior?.count == 3)
        #expect(prior?.versions == rows.map(\.1.version))
    }
}
