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
            // Saved objects only, read at once where the rows are written at once.
            let saved: Set<ObjectID>
            var prior: [(ObjectID, StoredObject)] = []
            if direct {
                prior = try store.readNumbered(
                    entity: entity.name, numbers: rowOf.keys.filter { $0.entity == entity.name }.map(\.number))
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
            return try writeMatching(entity) { () throws(EngineError) in
                prior
            } next: { i, row in
                Self.setting(values[i], on: row)
            } write: { (changed) throws(EngineError) in
                var batch = StoreBatch(updates: changed.map { ($0.0, $0.1!.values) })
                batch.updatedKeys = Self.givenKeys(rows)
                try store.write(batch)
            }
        }
    }

    /// Every key the rows give, sorted: the only ones the update can change.
    static func givenKeys(_ rows: [Snapshot]) -> [String] {
        var keys = Set<String>()
        for row in rows { keys.formUnion(row.keys) }
        return keys.sorted()
    }
}
