import Model

/// A batch request's objects as a merging context notes them all at once (`Context.noteRun`):
/// ascending by id, with their values before and after the batch, taken from the rows the
/// batch read and wrote. The change cycle reads each object's change from here, with no
/// table entry, sort or read back per object (what `noteCurrent` costs for each).
enum NotedRun {
    case none
    /// New objects with the values they were written with; each has every one of `keys`.
    case inserted([(ObjectID, Snapshot)], keys: Set<String>)
    /// Saved objects with their values before and after (nil: deleted).
    case changed([(ObjectID, Snapshot, Snapshot?)])

    var count: Int {
        switch self {
        case .none: 0
        case .inserted(let run, _): run.count
        case .changed(let run): run.count
        }
    }

    func id(_ i: Int) -> ObjectID {
        switch self {
        case .none: preconditionFailure("an empty run has no ids")
        case .inserted(let run, _): run[i].0
        case .changed(let run): run[i].0
        }
    }

    /// The `i`th object's change; nil when its values did not change.
    func change(_ i: Int, _ differing: inout DifferingKeys) -> ChangeSet.Change? {
        switch self {
        case .none: preconditionFailure("an empty run has no changes")
        case .inserted(let run, let keys):
            return ChangeSet.Change(id: run[i].0, before: nil, after: run[i].1, changedKeys: keys)
        case .changed(let run):
            let (id, before, after) = run[i]
            let keys = differing(before, after)
            if after != nil && keys.isEmpty { return nil }
            return ChangeSet.Change(id: id, before: before, after: after, changedKeys: keys)
        }
    }
}
