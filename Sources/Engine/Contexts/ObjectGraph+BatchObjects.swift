import Model
import Store

/// A batch update that gives each object its own values (protocol.md §5 "Batch requests",
/// `store/batchUpdateObjects`): what many `context/update`s and a save do, in one request
/// and one transaction, merged by every merging root as one change cycle.
extension ObjectGraph {
    /// Sets each object's values (a row per object; keys left out keep their value) and
    /// returns how many objects there were. `rejected` are values the caller could not read.
    /// Objects that are not saved objects of the entity, objects given twice and bad values
    /// are all listed (`validation`, by row and key); then nothing is written.
    @discardableResult
    public func batchUpdate(
        _ entityName: String, objects: [(ObjectID, Snapshot)], rejected: [BatchProblem] = []
    ) throws(EngineError) -> Int {
        let entity = try batchEntity(entityName)
        // The objects' values are freed after the answer, with the rows read (`releaseLater`).
        releaseLater(objects)
        return try underWriteLock { () throws(EngineError) in
            let batch = batchContext()
            let rows = objects.map(\.1)
            var problems = try Self.rowProblems(rows, rejected, entity, batch, required: false)
            var rowOf: [ObjectID: Int] = Dictionary(minimumCapacity: objects.count)
            for (row, (id, _)) in objects.enumerated() {
                if id.entity != entity.name {
                    problems.append(BatchProblem(row: row, id: id, reason: "not a \(entity.name)"))
                } else if let first = rowOf.updateValue(row, forKey: id) {
                    problems.append(BatchProblem(row: row, id: id, reason: "given twice (first in row \(first))"))
                    rowOf[id] = first
                }
            }
            let direct = store.isSingleRow(entity.name) && setsOwnColumns(rows, of: entity)
            let keys = Self.givenKeys(rows)
            // Saved objects only, read at once where the rows are written at once, with what
            // the history records of them.
            let saved: Set<ObjectID>
            var prior: [(ObjectID, StoredObject)] = []
            var history: PriorHistory?
            if direct {
                (prior, history) = try store.readNumbered(
                    entity: entity.name, numbers: rowOf.keys.filter { $0.entity == entity.name }.map(\.number),
                    keepingHistoryOf: keys)
                saved = Set(prior.map(\.0))
            } else {
                var found = Set<ObjectID>()
                for id in rowOf.keys where id.entity == entity.name {
                    if try store.read(id) != nil { found.insert(id) }
                }
                saved = found
            }
            for (row, (id, _)) in objects.enumerated() where id.entity == entity.name && !saved.contains(id) {
                problems.append(BatchProblem(row: row, id: id, reason: "no such object in the store"))
            }
            try Self.refuse(problems, "objects")
            guard direct else {
                for (id, values) in objects { try batch.update(id, values) }
                try batch.save()
                return objects.count
            }
            // Each object's values beside its row, in the rows' (ascending) order.
            let values = prior.map { objects[rowOf[$0.0]!].1 }
            return try writeMatching(entity, changing: keys) { () throws(EngineError) in
                prior
            } next: { i, row in
                Self.setting(values[i], on: row)
            } write: { (changed) throws(EngineError) in
                var batch = StoreBatch(updates: changed.map { ($0.0, $0.1!.values) })
                batch.updatedKeys = keys
                batch.priorHistory = history.map { $0.rows(Self.positions(of: changed, in: prior)) }
                try store.write(batch)
            }
        }
    }

    /// The index in `all` of each row of `some` (both ascending by id, `some` a part of `all`).
    static func positions<T, U>(of some: [(ObjectID, T)], in all: [(ObjectID, U)]) -> [Int] {
        var out: [Int] = []
        out.reserveCapacity(some.count)
        var i = 0
        for (id, _) in some {
            while all[i].0 != id { i += 1 }
            out.append(i)
        }
        return out
    }

    /// Every key the rows give, sorted: the only ones the update can change.
    static func givenKeys(_ rows: [Snapshot]) -> [String] {
        var keys = Set<String>()
        for row in rows { keys.formUnion(row.keys) }
        return keys.sorted()
    }
}
