import Model
import Predicates
import Testing

@testable import Store

/// The store's reads of a compiled request: counts and keyed rows, with skipped ids and a
/// window cut by SQL.
@Suite struct StoreQueryTests {
    static let model = ObjectModel(entities: [
        Entity(
            name: "Item",
            attributes: [
                Attribute(name: "value", type: .integer),
                Attribute(name: "label", type: .string),
            ])
    ])
    /// Item n has value (n * 7) % 10 and label "L<n>".
    static let values: [Int64] = (1...10).map { ($0 * 7) % 10 }

    static func sqlite(_ model: ObjectModel) throws -> any Store {
        try SQLiteStore.open(model: model) { try SQLFunctions.register(on: $0) }
    }

    /// The ten items in a new store made by `open` (SQLite in memory unless told).
    static func store(_ open: (ObjectModel) throws -> any Store = sqlite) throws -> any Store {
        let store = try open(model)
        var batch = StoreBatch()
        for (i, v) in values.enumerated() {
            let id = try store.reserveID(for: "Item")
            #expect(id.number == Int64(i + 1))
            batch.inserts.append((id, ["value": .integer(v), "label": .string("L\(i + 1)")]))
        }
        try store.write(batch)
        return store
    }

    static func compile(_ predicate: String?, _ sorts: [SortDescriptor] = []) throws -> CompiledRequest {
        try RequestCompiler(model: model).compile(
            FetchRequest(entity: "Item", predicate: predicate, sortDescriptors: sorts))
    }

    /// The rows as (id number, key) pairs.
    static func keys(
        _ store: any Store, _ request: CompiledRequest, ordered: Bool = true, limit: Int? = nil, offset: Int = 0,
        skipping: Set<Int64> = []
    ) throws -> [(Int64, SortKey)] {
        var rows: [(Int64, SortKey)] = []
        try store.forEachKey(
            entity: "Item", filter: request.filter, ordering: ordered ? request.ordering : nil,
            limit: limit, offset: offset, skipping: skipping, ordered: true
        ) { rows.append(($0, $1)) }
        return rows
    }

    @Test func countsMatchesLeavingOutSkippedIds() throws { try Self.countsMatchesLeavingOutSkippedIds(Self.store()) }

    static func countsMatchesLeavingOutSkippedIds(_ store: any Store) throws {
        let request = try Self.compile("value >= 5")
        let matching = Set(Self.values.indices.filter { Self.values[$0] >= 5 }.map { Int64($0 + 1) })
        #expect(try store.count(entity: "Item", filter: request.filter) == matching.count)
        #expect(try store.count(entity: "Item", filter: nil) == Self.values.count)
        let skipped: Set<Int64> = [matching.min()!, 1_000]
        #expect(try store.count(entity: "Item", filter: request.filter, skipping: skipped) == matching.count - 1)
    }

    @Test func keyedRowsComeInTheOrderingThenByIdNumber() throws {
        try Self.keyedRowsComeInTheOrderingThenByIdNumber(Self.store())
    }

    static func keyedRowsComeInTheOrderingThenByIdNumber(_ store: any Store) throws {
        let request = try Self.compile("value < 8", [SortDescriptor(key: "value", ascending: false)])
        let expected = Self.values.indices.filter { Self.values[$0] < 8 }
            .sorted { Self.values[$0] != Self.values[$1] ? Self.values[$0] > Self.values[$1] : $0 < $1 }
        let rows = try Self.keys(store, request)
        #expect(rows.map(\.0) == expected.map { Int64($0 + 1) })
        #expect(rows.map(\.1) == expected.map { [.integer(Self.values[$0])] })
    }

    @Test func windowAndSkippedIdsAreCutFromTheSameOrder() throws {
        try Self.windowAndSkippedIdsAreCutFromTheSameOrder(Self.store())
    }

    static func windowAndSkippedIdsAreCutFromTheSameOrder(_ store: any Store) throws {
        let request = try Self.compile(nil, [SortDescriptor(key: "value")])
        let all = try Self.keys(store, request).map(\.0)
        #expect(all.count == Self.values.count)
        #expect(try Self.keys(store, request, limit: 3, offset: 2).map(\.0) == Array(all[2..<5]))
        #expect(try Self.keys(store, request, offset: 8).map(\.0) == Array(all[8...]))
        #expect(
            try Self.keys(store, request, skipping: [all[0], all[4]]).map(\.0)
                == all.filter { $0 != all[0] && $0 != all[4] })
    }

    @Test func withoutAnOrderingRowsComeByIdNumberWithEmptyKeys() throws {
        try Self.withoutAnOrderingRowsComeByIdNumberWithEmptyKeys(Self.store())
    }

    static func withoutAnOrderingRowsComeByIdNumberWithEmptyKeys(_ store: any Store) throws {
        let rows = try Self.keys(store, try Self.compile("label BEGINSWITH 'L1'"), ordered: false)
        #expect(rows.map(\.0) == [1, 10])
        #expect(rows.allSatisfy { $0.1.isEmpty })
    }

    @Test func aClosedStoreReportsStoreClosed() throws { try Self.aClosedStoreReportsStoreClosed(Self.store()) }

    static func aClosedStoreReportsStoreClosed(_ store: any Store) throws {
        let request = try Self.compile(nil)
        store.close()
        #expect(throws: EngineError.self) { try store.count(entity: "Item", filter: request.filter) }
        do {
            try store.forEachKey(
                entity: "Item", filter: request.filter, ordering: request.ordering, limit: nil, offset: 0,
                skipping: [], ordered: true
            ) { _, _ in }
            Issue.record("a closed store answered")
        } catch {
            #expect(error.kind == .storeClosed)
        }
    }
}
