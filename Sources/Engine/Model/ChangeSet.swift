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

        /// `before != after`, read off `changedKeys` (not empty exactly when two snapshots
        /// differ) where it can be: comparing the snapshots hashes every key.
        public var changesValues: Bool {
            switch (before, after) {
            case (nil, nil): false
            case (_?, _?): !changedKeys.isEmpty || before != after
            default: true
            }
        }

        public var isInsert: Bool { before == nil && after != nil }
        public var isDelete: Bool { before != nil && after == nil }
    }

    /// Why a cycle happened.
    public enum Reason: String, Sendable, CaseIterable {
        /// The end of a request (or batch) that changed the context, or processPendingChanges.
        case request
        /// The context saved (a root writing the store), or a child saved into it.
        case save
        /// The context took in another root context's save.
        case merge
        /// The context rolled back its unsaved changes.
        case rollback
        /// Another process committed to the store (merged by `ObjectGraph.mergeExternalChanges`).
        case external
        /// The context undid or redid its last group of edits (Contexts/Undo.swift).
        case undo, redo
        /// A batch request (store/batchInsert, batchUpdate, batchDelete) wrote the store.
        case batch
    }

    public var context: String
    /// One entry per changed object, in a deterministic order (entity, then id number).
    public var changes: [Change]
    public var reason: Reason
    /// What changed is not known (history the context never read was pruned): every
    /// controller of the context fetches again and reports the difference (`changes` empty).
    public var refetch = false

    public init(context: String, changes: [Change], reason: Reason = .request, refetch: Bool = false) {
        self.context = context
        self.changes = changes
        self.reason = reason
        self.refetch = refetch
    }

    public var isEmpty: Bool { changes.isEmpty && !refetch }

    /// The change of `id`, if the cycle changed it (`changes` are ascending by id).
    public func change(of id: ObjectID) -> Change? {
        index(of: id).map { changes[$0] }
    }

    /// Where `id`'s change is in `changes`, if the cycle changed it: a reader that wants one
    /// field of it (`changes[i].after`) copies that field, not the whole change. Ids asked in
    /// ascending order start each search just past the change found last (`start`), where the
    /// next one usually is: a column of 100,000 rows is one look each instead of a binary
    /// search that misses the cache at every level.
    public func index(of id: ObjectID, from start: Int = 0) -> Int? {
        ObjectID.index(of: id, in: changes, from: start, by: \.id)
    }
}
