import Model
import Testing

@testable import Store

/// What a batch hands its merging roots: its rows first, then a run of new rows, each found
/// where its number puts it in a run, else by a binary search; anything else is not the
/// batch's to answer.
@Suite struct JustWrittenTests {
    static func id(_ n: Int64, _ entity: String = "Tag") -> ObjectID { ObjectID(entity: entity, number: n) }

    @Test func theRunAnswersItsOwnIdsAtVersionOneAndNothingElse() {
        let numbers: [Int64] = [3, 4, 5, 9, 10, 40]
        let written = JustWritten(inserted: numbers.map { (Self.id($0), ["label": .string("t\($0)")]) })
        for n in numbers {
            #expect(written.lookup(Self.id(n)) == .some(StoredObject(values: ["label": .string("t\(n)")], version: 1)))
        }
        for n: Int64 in [1, 2, 6, 8, 11, 39, 41, 1000] { #expect(written.lookup(Self.id(n)) == nil, "Tag/\(n)") }
        // Same number, other entity: not in the run.
        #expect(written.lookup(Self.id(4, "Group")) == nil)
        #expect(JustWritten().lookup(Self.id(1)) == nil)
    }

    @Test func rowsComeBeforeTheRunAndMaySayNoSuchRow() {
        let gone = Self.id(4)
        let changed = Self.id(5)
        let rows: [(ObjectID, StoredObject?)] = [
            (gone, nil), (changed, StoredObject(values: ["label": .string("new")], version: 7)),
        ]
        let written = JustWritten(
            rows: rows,
            inserted: [(Self.id(5), ["label": .string("old")]), (Self.id(6), [:])])
        #expect(written.lookup(gone) == .some(nil))
        #expect(written.lookup(changed) == .some(StoredObject(values: ["label": .string("new")], version: 7)))
        #expect(written.lookup(Self.id(6)) == .some(StoredObject(values: [:], version: 1)))
    }

    @Test func manyRowsAreFoundByTheirIdsAndGapsAreNot() {
        // Every third number, as a batch that skipped rows it does not change.
        let rows: [(ObjectID, StoredObject?)] = stride(from: Int64(3), through: 3000, by: 3).map {
            (Self.id($0), $0 % 2 == 0 ? nil : StoredObject(values: ["n": .integer($0)], version: $0))
        }
        let written = JustWritten(rows: rows)
        for n in Int64(0)...3001 {
            let found = written.lookup(Self.id(n))
            if n % 3 != 0 || n == 0 {
                #expect(found == nil, "Tag/\(n)")
            } else if n % 2 == 0 {
                #expect(found == .some(nil), "Tag/\(n)")
            } else {
                #expect(found == .some(StoredObject(values: ["n": .integer(n)], version: n)), "Tag/\(n)")
            }
        }
        #expect(written.lookup(Self.id(3, "Group")) == nil)
    }

    @Test func entitiesSharingNumbersAreFoundEachInItsPlace() {
        // Group/1...Group/500, then Tag/1...Tag/500: a number's place in the run is right
        // for one entity only.
        let inserted = (["Group", "Tag"] as [String]).flatMap { entity in
            (Int64(1)...500).map { (Self.id($0, entity), ["n": Value.integer($0)] as Snapshot) }
        }
        let written = JustWritten(inserted: inserted)
        for entity in ["Group", "Tag"] {
            for n in Int64(1)...500 {
                #expect(
                    written.lookup(Self.id(n, entity)) == .some(StoredObject(values: ["n": .integer(n)], version: 1)))
            }
            #expect(written.lookup(Self.id(501, entity)) == nil)
        }
        #expect(written.lookup(Self.id(7, "Note")) == nil)
    }
}
