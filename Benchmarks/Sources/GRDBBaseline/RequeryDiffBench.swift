import Foundation
import GRDB

/// Receives every fresh value of the observation and diffs it against the previous one by
/// object id, the way a list UI fed by ValueObservation must (GRDB yields values, not changes).
final class DiffProbe: @unchecked Sendable {
    private let lock = NSLock()
    private var previous: [Int64] = []
    private var hasInitialValue = false
    private var finishedAt = 0.0
    private var changeCount = 0
    private let arrived = DispatchSemaphore(value: 0)

    func receive(_ rows: [IdKey]) {
        let ids = rows.map(\.id)
        let (oldIds, isInitial) = lock.withLock { (previous, !hasInitialValue) }
        // The initial value is not a change; and diffing n rows against an empty array is
        // quadratic in this stdlib (39 s for 100k ids), which would only measure that.
        let count = isInitial ? 0 : ids.difference(from: oldIds).inferringMoves().count
        let now = Clock.nowMicros()
        lock.withLock {
            previous = ids
            hasInitialValue = true
            finishedAt = now
            changeCount = count
        }
        arrived.signal()
    }

    /// Blocks until the next value was diffed; returns when that finished and the diff size.
    func awaitNext() -> (finishedAt: Double, changes: Int) {
        arrived.wait()
        return lock.withLock { (finishedAt, changeCount) }
    }
}

/// GRDB 7 ValueObservation + CollectionDifference: time from the start of the write to the
/// new difference computed, for single-row changes and for one many-row transaction.
struct RequeryDiffBench {
    let queue: DatabaseQueue
    let rows: Int

    struct Result {
        var single: [Double] = []
        var nonEmptyDiffs = 0
        var cycle: Double?
        var cycleDiffSize = 0
        /// "id:ts" of the first change, to check that every baseline ran the same workload.
        var firstChange = ""
    }

    func run(iterations: Int, cycleChanges: Int) throws -> Result {
        let probe = DiffProbe()
        let observation = ValueObservation.trackingConstantRegion { db in
            try IdKey.fetchAll(db, sql: Fixture.orderedIdsAndKeys)
        }
        let cancellable = observation.start(
            in: queue, scheduling: .async(onQueue: DispatchQueue(label: "grdb-baseline.observer")),
            onError: { error in
                FileHandle.standardError.write(Data("grdb-baseline: observation failed: \(error)\n".utf8))
                exit(1)
            },
            onChange: { probe.receive($0) })
        defer { cancellable.cancel() }
        _ = probe.awaitNext() // the initial fetch

        var result = Result()
        var changes = Workload.Changes(rowCount: rows)
        for _ in 0..<iterations {
            let change = changes.next()
            if result.firstChange.isEmpty { result.firstChange = "\(change.id):\(change.ts)" }
            let start = Clock.nowMicros()
            try queue.write { db in
                try db.execute(sql: "UPDATE msg SET ts = ? WHERE id = ?", arguments: [change.ts, change.id])
            }
            let (finished, size) = probe.awaitNext()
            result.single.append(finished - start)
            if size > 0 { result.nonEmptyDiffs += 1 }
        }
        if cycleChanges > 0 {
            // The next `cycleChanges` changes of the same sequence, in one transaction.
            let batch = (0..<cycleChanges).map { _ in changes.next() }
            let start = Clock.nowMicros()
            try queue.write { db in
                let update = try db.makeStatement(sql: "UPDATE msg SET ts = ? WHERE id = ?")
                for change in batch { try update.execute(arguments: [change.ts, change.id]) }
            }
            let (finished, size) = probe.awaitNext()
            result.cycle = finished - start
            result.cycleDiffSize = size
        }
        return result
    }

    /// GRDB's own fetch of the same ordered ids and keys (no observation).
    func fetchAll(repeats: Int) throws -> [Double] {
        try (0..<repeats).map { _ in
            try Clock.measure {
                let fetched = try queue.read { db in try IdKey.fetchAll(db, sql: Fixture.orderedIdsAndKeys) }
                precondition(fetched.count == rows, "fetched \(fetched.count) rows, expected \(rows)")
            }
        }
    }
}
