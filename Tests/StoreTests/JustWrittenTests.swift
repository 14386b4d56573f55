import Model
import Testing

@testable import Store

/// What a batch hands its merging roots: rows by id first, then a run of new rows found by
/// a binary search; anything else is not the batch's to answer.
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
        let rows: [ObjectID: StoredObject?] = [
            gone: StoredObject?.none, changed: StoredObject(values: ["label": .string("new")], version: 7),
        ]
        let written = JustWritten(
            rows: rows,
            inserted: [(Self.id(5), ["label": .string("old")]), (Self.id(6), [:])])
        #expect(written.lookup(gone) == .some(nil))
        #expect(written.lookup(changed) == .some(StoredObject(values: ["label": .string("new")], version: 7)))
        #expect(written.lookup(Self.id(6)) == .some(StoredObject(values: [:], version: 1)))
    }
}
