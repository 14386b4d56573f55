/// What one change cycle of a context did, for the controllers on that context.
///
/// Produced by processPendingChanges (and by save, rollback, child saves and merges). It
/// carries every changed object's values before and after the cycle, so a controller can
/// find an object's old position from its old key without remembering any row itself.
public struct ChangeSet: Sendable {
    public struct Change: Sendable {
        public var id: ObjectID
        /// Values before the cycle; nil when the object did not exist in this context's view.
        public var before: Snapshot?
        /// Values after the cycle; nil when the object no longer exists in this context's view.
        public var after: Snapshot?
        /// Keys whose value differs between before and after (every key for inserts/deletes).
        public var changedKeys: Set<String>

        public init(id: ObjectID, before: Snapshot?, after: Snapshot?, changedKeys: Set<String>) {
            self.id = id
            self.before = before
            self.after = after
            self.changedKeys = changedKeys
        }

        public var isInsert: Bool { before == nil && after != nil }
        public var isDelete: Bool { before != nil && after == nil }
    }

    public var context: String
    /// One entry per changed object, in a deterministic order (entity, then id number).
    public var changes: [Change]

    public init(context: String, changes: [Change]) {
        self.context = context
        self.changes = changes
    }

    public var isEmpty: Bool { changes.isEmpty }
}
