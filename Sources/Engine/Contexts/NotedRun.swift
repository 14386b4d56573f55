import Model
import Store

/// A batch request's objects as a merging context notes them all at once (`noteNew(run:keys:)`,
/// `noteChanged(before:after:entity:)`):
/// ascending by id, with their values before and after the batch, taken from the rows the
/// batch read and wrote. The change cycle reads each object's change from here, with no
/// table entry, sort or read back per object (what `noteCurrent` costs for each).
enum NotedRun {
    case none
    /// New objects with the values they were written with; each has every one of `keys`.
    case inserted([(ObjectID, Snapshot)], keys: Set<String>)
    /// Saved objects as the batch read them and as it wrote them (nil: deleted), index by
    /// index: the same lists the store answers reads from (`JustWritten`), not a copy.
    /// `keys`: the only keys whose values a row can change (a batch update's), compared alone.
    case changed(before: [(ObjectID, StoredObject?)], after: [(ObjectID, StoredObject?)], keys: [String]?)

    var count: Int {
        switch self {
        case .none: 0
        case .inserted(let run, _): run.count
        case .changed(let before, _, _): before.count
        }
    }

    func id(_ i: Int) -> ObjectID {
        switch self {
        case .none: preconditionFailure("an empty run has no ids")
        case .inserted(let run, _): run[i].0
        case .changed(let before, _, _): before[i].0
        }
    }

    /// The `i`th object's change; nil when its values did not change.
    func change(_ i: Int, _ differing: inout DifferingKeys) -> ChangeSet.Change? {
        switch self {
        case .none: preconditionFailure("an empty run has no changes")
        case .inserted(let run, let keys):
            return ChangeSet.Change(id: run[i].0, before: nil, after: run[i].1, changedKeys: keys)
        case .changed(let before, let after, let only):
            let (id, old) = before[i]
            let new = after[i].1
            let keys: Set<String>
            if let only, let o = old?.values, let n = new?.values {
                keys = differing(o, n, among: only)
            } else {
                keys = differing(old?.values, new?.values)
            }
            if new != nil && keys.isEmpty { return nil }
            return ChangeSet.Change(id: id, before: old?.values, after: new?.values, changedKeys: keys)
        }
    }
}
