import Model
import Store

/// Predicate batches run as SQL alone (`Store.updateWhere`, `Store.deleteWhere`): the
/// history rows and the write driven by the predicate's own WHERE clause, no row read into
/// Swift. Only when nothing in the graph would use the rows' values: noting them feeds the
/// observers' change sets, the rebase of unsaved changes and the undo stacks, so each of
/// those must be absent for the entity. Otherwise (or when the store does not do it) the
/// batch reads its rows and every merging root notes them (ObjectGraph+Batch.swift).
extension ObjectGraph {
    /// Whether a batch on `entity` may skip noting its rows: no context is mid-cycle, holds
    /// a pending change of the entity or an undo or redo entry naming one, and no observer
    /// asks for the rows (`GraphObserver.graph(_:needsBatchValuesOf:)`, yes by default).
    func batchValuesUnneeded(_ entity: String) -> Bool {
        for c in contexts {
            if c.isDirty || c.hasPending(of: entity) { return false }
            if let u = c.undoStack, u.names(entity) { return false }
        }
        return !observers.all.contains { $0.graph(self, needsBatchValuesOf: entity) }
    }

    /// `updateDirectly` as SQL alone, committed; nil when the values are needed or the store
    /// does not do it (nothing written then).
    func updateInSQL(_ entity: Entity, _ filter: (any ObjectFilter)?, _ values: Snapshot) throws(EngineError)
        -> Int?
    {
        guard batchValuesUnneeded(entity.name),
            let matched = try store.updateWhere(entity: entity.name, filter: filter, values: values)
        else { return nil }
        try store.commitWrite()
        return matched
    }

    /// `deleteDirectly` as SQL alone, committed; nil as for `updateInSQL`.
    func deleteInSQL(_ entity: Entity, _ filter: (any ObjectFilter)?) throws(EngineError) -> Int? {
        guard batchValuesUnneeded(entity.name), let deleted = try store.deleteWhere(entity: entity.name, filter: filter)
        else { return nil }
        try store.commitWrite()
        return deleted
    }
}
