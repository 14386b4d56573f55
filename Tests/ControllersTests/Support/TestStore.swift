import Model

@testable import Controllers

/// An in-memory object store standing in for a context: it keeps both sides of every
/// relationship, records each changed object's values before the cycle, and hands out one
/// `ChangeSet` per cycle, as processPendingChanges will.
final class TestStore: ControllerSource {
    let model: ObjectModel
    private(set) var objects: [ObjectID: Snapshot] = [:]
    private var next: [String: Int64] = [:]
    /// Values at the start of the cycle of every object touched in it (nil: did not exist).
    private var before: [ObjectID: Snapshot?] = [:]

    init(model: ObjectModel) { self.model = model }

    // MARK: Mutation (one cycle until `endCycle`)

    @discardableResult
    func insert(_ entity: String, _ values: Snapshot) -> ObjectID {
        let n = (next[entity] ?? 0) + 1
        next[entity] = n
        let id = ObjectID(entity: entity, number: n)
        touch(id)
        var snap: Snapshot = [:]
        let e = model.entity(entity)!
        for a in e.attributes { snap[a.name] = .null }
        for r in e.relationships { snap[r.name] = r.toMany ? .objects([]) : .null }
        objects[id] = snap
        for (k, v) in values { set(id, k, v) }
        return id
    }

    func set(_ id: ObjectID, _ key: String, _ value: Value) {
        guard var snap = objects[id] else { preconditionFailure("no \(id)") }
        touch(id)
        if let rel = model.entity(id.entity)?.relationship(key), !rel.toMany {
            if case .object(let old)? = snap[key] { unlink(old, rel.inverse, id) }
            if case .object(let new) = value { link(new, rel.inverse, id) }
        }
        snap[key] = value
        objects[id] = snap
    }

    /// Deletes the object, nullifying the to-one relationships that point at it.
    func delete(_ id: ObjectID) {
        guard let snap = objects[id] else { return }
        for rel in model.entity(id.entity)!.relationships {
            if rel.toMany, case .objects(let ids)? = snap[rel.name] {
                for other in ids { set(other, rel.inverse, .null) }
            } else if case .object(let other)? = snap[rel.name] {
                unlink(other, rel.inverse, id)
            }
        }
        touch(id)
        objects[id] = nil
    }

    func endCycle() -> ChangeSet {
        var changes: [ChangeSet.Change] = []
        for (id, old) in before {
            let new = objects[id]
            if old == new { continue }
            let keys = Set((old ?? [:]).keys).union((new ?? [:]).keys).filter { old?[$0] != new?[$0] }
            changes.append(ChangeSet.Change(id: id, before: old, after: new, changedKeys: keys))
        }
        before = [:]
        changes.sort { $0.id < $1.id }
        return ChangeSet(context: "test", changes: changes)
    }

    private func touch(_ id: ObjectID) { if before[id] == nil { before[id] = .some(objects[id]) } }

    private func link(_ target: ObjectID, _ inverse: String, _ id: ObjectID) {
        guard var snap = objects[target] else { return }
        touch(target)
        guard case .objects(var ids)? = snap[inverse] else { return }
        ids.append(id)
        ids.sort { $0.number < $1.number }
        snap[inverse] = .objects(ids)
        objects[target] = snap
    }

    private func unlink(_ target: ObjectID, _ inverse: String, _ id: ObjectID) {
        guard var snap = objects[target] else { return }
        touch(target)
        guard case .objects(let ids)? = snap[inverse] else { return }
        snap[inverse] = .objects(ids.filter { $0 != id })
        objects[target] = snap
    }

    // MARK: ControllerSource

    func snapshot(of id: ObjectID) -> Snapshot? { objects[id] }

    func referrers(of target: ObjectID, entity: String, relationship: String) -> [ObjectID] {
        objects.filter { $0.key.entity == entity && $0.value[relationship] == .object(target) }
            .map(\.key).sorted { $0.number < $1.number }
    }

    func ids(of entity: String) -> [ObjectID] {
        objects.keys.filter { $0.entity == entity }.sorted { $0.number < $1.number }
    }

    func fetchKeys(filter: (any ObjectFilter)?, ordering: any ObjectOrdering) throws(EngineError) -> [(
        ObjectID, SortKey
    )] {
        ids(of: ordering.entity).filter { filter?.matches($0, objects[$0]!, in: self) ?? true }
            .map { ($0, ordering.key(of: $0, objects[$0]!, in: self)) }
            .sorted { a, b in
                let c = ordering.compare(a.1, b.1)
                return c != 0 ? c < 0 : a.0.number < b.0.number
            }
    }
}
