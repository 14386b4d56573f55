import Model
import Testing

@testable import Controllers

#if canImport(Glibc)
    import Glibc
#endif

/// Measurements, run only with FETCHD_BENCH=1 (in a release build):
///   swift build -c release --build-tests -Xswiftc -enable-testing --build-path .build-release
///   FETCHD_BENCH=1 swift test -c release --skip-build --build-path .build-release --filter BenchmarkTests
@Suite(.serialized, .enabled(if: getenvString("FETCHD_BENCH") == "1")) struct BenchmarkTests {
    /// n objects `Item/1...n` with one integer attribute, held in a flat array.
    final class IntSource: ControllerSource {
        var values: [Int64]
        init(n: Int, rng: inout SeededRandom) { values = (0..<n).map { _ in Int64(rng.int(0..<1_000_000_000)) } }
        func snapshot(of id: ObjectID) -> Snapshot? {
            id.number >= 1 && Int(id.number) <= values.count ? ["value": .integer(values[Int(id.number) - 1])] : nil
        }
        func referrers(of target: ObjectID, entity: String, relationship: String) -> [ObjectID] { [] }
        func fetchKeys(filter: (any ObjectFilter)?, ordering: any ObjectOrdering) throws(EngineError) -> [(
            ObjectID, SortKey
        )] {
            values.indices.sorted { values[$0] != values[$1] ? values[$0] < values[$1] : $0 < $1 }
                .map { (ObjectID(entity: "Item", number: Int64($0 + 1)), [.integer(values[$0])]) }
        }
        /// Sets new values and returns the cycle's change set.
        func change(_ picks: [(Int, Int64)]) -> ChangeSet {
            var changes: [ChangeSet.Change] = []
            var seen = Set<Int>()
            for (i, v) in picks where values[i] != v && seen.insert(i).inserted {
                let before: Snapshot = ["value": .integer(values[i])]
                values[i] = v
                changes.append(
                    .init(
                        id: ObjectID(entity: "Item", number: Int64(i + 1)), before: before,
                        after: ["value": .integer(v)], changedKeys: ["value"]))
            }
            return ChangeSet(context: "bench", changes: changes)
        }
    }

    /// Ascending integer keys: the cheapest comparator, so the figures are the engine's.
    struct IntOrdering: ObjectOrdering {
        let entity = "Item"
        func orderBy(alias: String) -> SQLFragment { SQLFragment("\(alias).value") }
        func keyColumns(alias: String) -> [SQLFragment] { [SQLFragment("\(alias).value")] }
        func key(of id: ObjectID, _ values: Snapshot, in view: ObjectView) -> SortKey { [values["value"] ?? .null] }
        func key(fromColumns columns: [Value]) -> SortKey { columns }
        func compare(_ a: SortKey, _ b: SortKey) -> Int {
            guard case .integer(let x) = a[0], case .integer(let y) = b[0] else { return 0 }
            return x < y ? -1 : (x > y ? 1 : 0)
        }
        var relationshipPaths: [[String]] { [] }
    }

    static let model = ObjectModel(entities: [
        Entity(name: "Item", attributes: [Attribute(name: "value", type: .integer)])
    ])

    static func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    static func percentile(_ xs: [Double], _ p: Double) -> Double {
        let s = xs.sorted()
        return s[min(s.count - 1, Int(Double(s.count) * p))]
    }

    static func fmt(_ x: Double) -> String { String((x * 100).rounded() / 100) }

    static func report(_ line: String) { print("BENCH \(line)") }

    /// FETCHD_BENCH_SIZES=1000000 picks the sizes; FETCHD_BENCH_BIG=0 skips the cycle that
    /// changes a fifth of the rows (so a profile shows the 10k-change cycles).
    static let sizes =
        getenvString("FETCHD_BENCH_SIZES").map { $0.split(separator: ",").compactMap { Int($0) } } ?? [
            10_000, 100_000, 1_000_000,
        ]

    @Test(arguments: sizes)
    func oneChangedObject(n: Int) throws {
        var rng = SeededRandom(seed: UInt64(n))
        let source = IntSource(n: n, rng: &rng)
        let c = FetchedResultsController(
            name: "bench", source: source, filter: TestFilter(entity: "Item"),
            ordering: IntOrdering(), model: Self.model)
        var t0 = Self.now()
        let fetched = try source.fetchKeys(filter: c.filter, ordering: c.ordering)
        let sourceTime = Self.now() - t0
        t0 = Self.now()
        try c.performFetch()
        let fetchTime = Self.now() - t0 - sourceTime
        _ = fetched
        let bytes = Double(c.results.rows.footprint) / Double(n)
        Self.report(
            "n=\(n) bulk load (performFetch minus the source's sort) \(Self.fmt(fetchTime * 1000)) ms; tree \(Self.fmt(bytes)) bytes/row"
        )

        var samples: [Double] = []
        for _ in 0..<3000 {
            let cs = source.change([(rng.int(0..<n), Int64(rng.int(0..<1_000_000_000)))])
            let t = Self.now()
            let events = c.apply(cs)
            samples.append(Self.now() - t)
            #expect(events.count == 3)
        }
        Self.report(
            "n=\(n) one changed object: p50 \(Self.fmt(Self.percentile(samples, 0.5) * 1e6)) us, p99 \(Self.fmt(Self.percentile(samples, 0.99) * 1e6)) us"
        )

        if n == 1_000_000 {
            // Five cycles: the median and the best (the machine is shared).
            var cycles: [Double] = []
            for _ in 0..<5 {
                let picks = (0..<10_000).map { _ in (rng.int(0..<n), Int64(rng.int(0..<1_000_000_000))) }
                let cs = source.change(picks)
                let t = Self.now()
                let events = c.apply(cs)
                cycles.append(Self.now() - t)
                #expect(events.count > 2)
                #expect(c.count == n)
            }
            Self.report(
                "n=\(n) 10k-change cycle: median \(Self.fmt(Self.percentile(cycles, 0.5) * 1000)) ms, best \(Self.fmt(cycles.min()! * 1000)) ms"
            )
            guard getenvString("FETCHD_BENCH_BIG") != "0" else { return }

            // A cycle changing a fifth of the rows rebuilds; compare with a fresh performFetch.
            t0 = Self.now()
            try c.performFetch()
            let fullFetch = Self.now() - t0
            let big = source.change((0..<200_000).map { _ in (rng.int(0..<n), Int64(rng.int(0..<1_000_000_000))) })
            let tb = Self.now()
            let bigEvents = c.apply(big)
            let bigCycle = Self.now() - tb
            #expect(bigEvents.count > 2 && c.count == n)
            Self.report(
                "n=\(n) \(big.changes.count)-change cycle\(c.lastCycleRebuilt ? " (rebuild)" : " (incremental)") \(Self.fmt(bigCycle * 1000)) ms vs performFetch \(Self.fmt(fullFetch * 1000)) ms: \(Self.fmt(bigCycle / fullFetch))x"
            )
        }
    }
}
