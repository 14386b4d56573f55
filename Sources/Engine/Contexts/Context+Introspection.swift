import Model

/// A context's unsaved changes relative to its parent (the store for a root), each list
/// sorted by entity, then number.
public struct ChangedObjects: Equatable, Sendable {
    public var inserted: [ObjectID]
    public var updated: [ObjectID]
    public var deleted: [ObjectID]
}

extension Context {
    /// Core Data's insertedObjects/updatedObjects/deletedObjects in one read. An update
    /// back to the original values is no change, as for `hasChanges`.
    public var changedObjects: ChangedObjects {
        var result = ChangedObjects(inserted: [], updated: [], deleted: [])
        for (id, change) in pending where change.isEffective {
            if change.isInsert {
                result.inserted.append(id)
            } else if change.isDelete {
                result.deleted.append(id)
            } else {
                result.updated.append(id)
            }
        }
        result.inserted.sort()
        result.updated.sort()
        result.deleted.sort()
        return result
    }

    /// The object as this context's parent shows it now (the store for a root), one-to-many
    /// sides included: Core Data's committedValues. Nil when the parent has no such object
    /// (this context inserted it, or it is gone).
    public func committedValues(_ id: ObjectID) throws(EngineError) -> Snapshot? {
        if let parent { return try parent.object(id) }
        guard model.entity(id.entity) != nil, var values = try store.read(id)?.values else { return nil }
        for r in model.derivedRelationships(of: id.entity) {
            values[r.name] = .objects(try store.relatedIDs(of: id, r.name).sorted())
        }
        return values
    }

    /// The keys whose value here differs from the committed one, with the values here: every
    /// key of an object this context inserted, none of one it left alone; `unknownObject` for
    /// one it cannot see (deleted here, or never there).
    public func changedValues(_ id: ObjectID) throws(EngineError) -> Snapshot {
        let current = try existing(id)
        guard let committed = try committedValues(id) else { return current }
        return current.filter { committed[$0.key] != $0.value }
    }

    /// Core Data's refresh(_:mergeChanges:). Contexts keep no cached copies (they read their
    /// parent live), so what is left to do is about this context's own unsaved change:
    /// `mergeChanges` true re-bases it on the committed values (the keys it changed keep its
    /// values; a later save no longer conflicts with what was committed meanwhile); false
    /// drops it, setting the changed keys back through the inverse rules so both sides of
    /// every relationship stay in step. An inserted or deleted object cannot be dropped this
    /// way (`invalidValue`: rollback does that); nothing changes on an error.
    public func refresh(_ id: ObjectID, mergeChanges: Bool) throws(EngineError) {
        guard model.entity(id.entity) != nil else {
            throw EngineError(.unknownEntity, "no entity \(id.entity)", [("entity", .string(id.entity))])
        }
        guard let change = pending[id] else {
            _ = try existing(id)
            return
        }
        if mergeChanges {
            if !change.isInsert { try rebaseOnParent(id) }
            return
        }
        guard !change.isInsert, !change.isDelete else {
            let what = change.isInsert ? "inserted" : "deleted"
            throw EngineError(
                .invalidValue, "\(id) was \(what) in context \(name): refreshing it without its changes is a rollback",
                [("id", .string(id.description)), ("context", .string(name))])
        }
        guard let committed = try committedValues(id) else {
            try replacePending(id, nil)
            return
        }
        var back: Snapshot = [:]
        for key in change.changedKeys { back[key] = committed[key] ?? .null }
        try update(id, back)
        try rebaseOnParent(id)
    }

    /// Core Data's reset(): forgets every unsaved change, as a rollback does (one change
    /// cycle, so controllers stay right).
    public func reset() throws(EngineError) {
        try rollback()
    }

    /// Re-bases the pending change of `id` on what the parent (the store for a root) shows
    /// now; dropped when it no longer changes anything, or when the object is gone there.
    func rebaseOnParent(_ id: ObjectID) throws(EngineError) {
        guard let p = pending[id], !p.isInsert else { return }
        let row: (values: Snapshot?, version: Int64?)
        if let parent {
            row = try parent.lookup(id)
        } else {
            row = try store.read(id).map { ($0.values, $0.version) } ?? (nil, nil)
        }
        guard let saved = stored(row.values, of: id.entity) else {
            // Another writer deleted it: undo must not bring it back.
            noteDeletedElsewhere(id)
            try replacePending(id, nil)
            return
        }
        var next = p
        if let values = p.values {
            var merged = saved
            for key in p.changedKeys { merged[key] = values[key] }
            next.values = merged
        }
        next.base = saved
        next.baseVersion = row.version
        try replacePending(id, next.isEffective ? next : nil)
    }
}
