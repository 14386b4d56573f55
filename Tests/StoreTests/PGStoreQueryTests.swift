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
        let zero = try compiler.compile(FetchRequest(entity: "Item", predicate: "value == 0")).filter
        for store in [pg, lite] as [any Store] {
            try store.beginWrite(author: "batch")
            let changing = try store.readMatching(entity: "Item", filter: narrow.filter)
                .filter { $0.1.values["value"] != .integer(99) }.map(\.0.number)
            try store.updateMatching(entity: "Item", numbers: changing, values: ["value": .integer(99)])
            try store.commitWrite()
            try store.beginWrite(author: "batch")
            try store.deleteMatching(
                entity: "Item", numbers: try store.readMatching(entity: "Item", filter: zero).map(\.0.number))
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
