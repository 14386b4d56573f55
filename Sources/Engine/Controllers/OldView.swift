import Model

/// The context as it was before a change cycle: the cycle's before snapshots laid over the
/// current view. Old keys are computed through it, so `author.name` reads the old name.
struct OldView: ObjectView {
    let current: any ObjectView
    let changes: [ObjectID: ChangeSet.Change]

    func snapshot(of id: ObjectID) -> Snapshot? {
        if let change = changes[id] { return change.before }
        return current.snapshot(of: id)
    }

    func referrers(of target: ObjectID, entity: String, relationship: String) -> [ObjectID] {
        var result: [ObjectID] = current.referrers(of: target, entity: entity, relationship: relationship)
            .filter { changes[$0] == nil }
        for (id, change) in changes where id.entity == entity && change.before?[relationship] == .object(target) {
            result.append(id)
        }
        return result.sorted { $0.number < $1.number }
    }
}
