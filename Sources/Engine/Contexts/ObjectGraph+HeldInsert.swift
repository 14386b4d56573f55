import Model
import Store

/// The parts of a batch insert held until its last part (protocol.md §5, "Batch requests").
/// Each part is checked when it arrives, so a bad row is reported at once and nothing waits
/// to fail at the end; the write checks again only what may have changed since: that the
/// objects the held rows refer to still exist.
struct HeldInsert {
    /// The parts' rows, one list per part as it came: holding a part copies no row.
    private(set) var parts: [[Snapshot]] = []
    private(set) var count = 0
    /// The objects the held rows refer to (each existed when its part was checked).
    var targets: Set<ObjectID> = []

    mutating func append(_ rows: [Snapshot]) {
        parts.append(rows)
        count += rows.count
    }

    /// Every held row, in order, then `last`.
    func rows(then last: [Snapshot]) -> [Snapshot] {
        var all: [Snapshot] = []
        all.reserveCapacity(count + last.count)
        for part in parts { all += part }
        all += last
        return all
    }

    /// The held rows that refer to an object deleted since their part was checked.
    func missingTargets(_ entity: Entity, _ view: Context) throws(EngineError) -> [ObjectGraph.BatchProblem] {
        var gone: Set<ObjectID> = []
        for t in targets where try view.object(t) == nil { gone.insert(t) }
        guard !gone.isEmpty else { return [] }
        var problems: [ObjectGraph.BatchProblem] = []
        for (row, values) in parts.joined().enumerated() {
            for r in entity.relationships {
                for t in values[r.name]?.objectIDs ?? [] where gone.contains(t) {
                    problems.append(.init(row: row, key: r.name, reason: InvalidValue.missingTarget("\(t)")))
                }
            }
        }
        return problems
    }
}

extension ObjectGraph {
    /// Checks `rows` as a batch insert checks its rows and holds them as the next part of
    /// the entity's insert: nothing is written until a `batchInsert` of the entity, which
    /// writes every held row before its own in one transaction. Row numbers of `rows` and
    /// `rejected` count from 0; the problems number them through the whole insert. A part
    /// with a problem drops what was held (the insert starts over). Answers how many rows
    /// are held now.
    @discardableResult
    public func holdInsertPart(_ entityName: String, rows: [Snapshot], rejected: [BatchProblem] = [])
        throws(EngineError) -> Int
    {
        let entity = try batchEntity(entityName)
        // Taken out: a part with a problem leaves nothing held.
        var held = heldInserts.removeValue(forKey: entity.name) ?? HeldInsert()
        let problems = try Self.rowProblems(rows, rejected, entity, batchContext(), firstRow: held.count)
        do throws(EngineError) { try Self.refuse(problems, "rows") } catch { throw error.droppingHeld(held.count) }
        for values in rows {
            for r in entity.relationships { held.targets.formUnion(values[r.name]?.objectIDs ?? []) }
        }
        held.append(rows)
        heldInserts[entity.name] = held
        return held.count
    }

    /// Drops the rows held for the entity's insert; answers how many there were.
    @discardableResult
    public func dropHeldInsert(_ entityName: String) throws(EngineError) -> Int {
        let entity = try batchEntity(entityName)
        return heldInserts.removeValue(forKey: entity.name)?.count ?? 0
    }

    /// How many rows are held for the entity's insert.
    public func heldInsertCount(_ entityName: String) -> Int { heldInserts[entityName]?.count ?? 0 }
}

extension EngineError {
    /// This error, saying that the `count` rows held for the insert were dropped with it.
    func droppingHeld(_ count: Int) -> EngineError {
        guard count > 0 else { return self }
        var error = self
        error.message += "; the \(count) row(s) held for this insert were dropped"
        error.details.append(("heldRowsDropped", .int(Int64(count))))
        return error
    }
}
