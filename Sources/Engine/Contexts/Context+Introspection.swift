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
}
