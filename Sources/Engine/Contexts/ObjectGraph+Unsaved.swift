import Model

/// What a context would write if it were saved now (its effective pending changes).
public struct UnsavedChanges: Equatable, Sendable {
    public var context: String
    public var inserted: Int
    public var updated: Int
    public var deleted: Int

    public init(context: String, inserted: Int, updated: Int, deleted: Int) {
        self.context = context
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
    }
}

extension ObjectGraph {
    /// Every context holding unsaved changes, in creation order: what closing now would drop.
    public var unsavedChanges: [UnsavedChanges] {
        contexts.compactMap { c in
            var counts = UnsavedChanges(context: c.name, inserted: 0, updated: 0, deleted: 0)
            for change in c.pending.values where change.isEffective {
                if change.isInsert {
                    counts.inserted += 1
                } else if change.isDelete {
                    counts.deleted += 1
                } else {
                    counts.updated += 1
                }
            }
            return counts.inserted + counts.updated + counts.deleted > 0 ? counts : nil
        }
    }
}
