import Model

/// The changes one mutation makes, computed completely (inverses, delete rules) before any
/// of them reaches the context, so a request that fails changes nothing.
struct Staging {
    let context: Context
    let model: ObjectModel
    private(set) var staged: [ObjectID: Snapshot] = [:]
    private(set) var deleted: Set<ObjectID> = []
    /// First-touch order, so applying is deterministic.
    private(set) var order: [ObjectID] = []
    var newIDs: Set<ObjectID> = []

    init(_ context: Context) {
        self.context = context
        self.model = context.model
    }

    func exists(_ id: ObjectID) throws(EngineError) -> Bool {
        if deleted.contains(id) { return false }
        if staged[id] != nil { return true }
        return try context.object(id) != nil
    }

    func get(_ id: ObjectID) throws(EngineError) -> Snapshot {
        if let s = staged[id] { return s }
        if deleted.contains(id) { throw unknown(id) }
        return try context.existing(id)
    }

    mutating func put(_ id: ObjectID, _ values: Snapshot) {
        if staged[id] == nil && !deleted.contains(id) { order.append(id) }
        staged[id] = values
    }

    func unknown(_ id: ObjectID) -> EngineError {
        EngineError(
            .unknownObject, "no object \(id) in context \(context.name)",
            [("id", .string(id.description)), ("context", .string(context.name))])
    }

    // MARK: Relationships, keeping both sides in step

    mutating func setToOne(_ a: ObjectID, _ r: Relationship, _ target: ObjectID?) throws(EngineError) {
        let old: ObjectID?
        if case .object(let o)? = try get(a)[r.name] { old = o } else { old = nil }
        guard old != target, let inverse = model.inverse(of: r) else { return }
        if let old, try exists(old) { try unlink(old, inverse, a) }
        var av = try get(a)
        av[r.name] = target.map(Value.object) ?? .null
        put(a, av)
        guard let target else { return }
        if inverse.toMany {
            try link(target, inverse, a)
        } else {
            // One-to-one: the target's previous partner lets go of it.
            var tv = try get(target)
            if case .object(let previous)? = tv[inverse.name], previous != a, try exists(previous) {
                var pv = try get(previous)
                pv[r.name] = .null
                put(previous, pv)
                tv = try get(target)
            }
            tv[inverse.name] = .object(a)
            put(target, tv)
        }
    }

    mutating func setToMany(_ a: ObjectID, _ r: Relationship, _ targets: [ObjectID]) throws(EngineError) {
        guard let inverse = model.inverse(of: r) else { return }
        let new = Set(targets)
        let old = Set((try get(a)[r.name] ?? .null).objectIDs)
        for b in old.subtracting(new).sorted() where try exists(b) { try unlink(b, inverse, a) }
        for b in new.subtracting(old).sorted() {
            if inverse.toMany {
                try link(b, inverse, a)
            } else {
                // One-to-many: b leaves its previous owner.
                if case .object(let previous)? = try get(b)[inverse.name], previous != a, try exists(previous) {
                    try unlink(previous, r, b)
                }
                var bv = try get(b)
                bv[inverse.name] = .object(a)
                put(b, bv)
            }
        }
        var av = try get(a)
        av[r.name] = .objects(new.sorted())
        put(a, av)
    }

    /// Removes `y` from `x`'s relationship `r`.
    private mutating func unlink(_ x: ObjectID, _ r: Relationship, _ y: ObjectID) throws(EngineError) {
        var xv = try get(x)
        if r.toMany {
            let ids = (xv[r.name] ?? .null).objectIDs
            guard ids.contains(y) else { return }
            xv[r.name] = .objects(ids.filter { $0 != y })
        } else {
            guard xv[r.name] == .object(y) else { return }
            xv[r.name] = .null
        }
        put(x, xv)
    }

    /// Adds `y` to `x`'s to-many relationship `r`, keeping ids ascending.
    private mutating func link(_ x: ObjectID, _ r: Relationship, _ y: ObjectID) throws(EngineError) {
        var xv = try get(x)
        var ids = (xv[r.name] ?? .null).objectIDs
        guard !ids.contains(y) else { return }
        ids.insert(y, at: ids.firstIndex { $0 > y } ?? ids.count)
        xv[r.name] = .objects(ids)
        put(x, xv)
    }

    // MARK: Deleting, with delete rules

    /// Deletes `root` and whatever its cascade rules reach; refuses (changing nothing) when a
    /// deny rule has a destination; nullify rules take the deleted objects out of their
    /// destinations; noAction leaves the destinations pointing at a deleted object, which a
    /// save refuses until the application fixes it.
    mutating func delete(_ root: ObjectID) throws(EngineError) {
        var doomed: [ObjectID] = [root]
        var doomedSet: Set<ObjectID> = [root]
        var i = 0
        while i < doomed.count {
            let x = doomed[i]
            i += 1
            let xv = try get(x)
            guard let entity = model.entity(x.entity) else { continue }
            for r in entity.relationships {
                var targets: [ObjectID] = []
                for t in (xv[r.name] ?? .null).objectIDs where try exists(t) { targets.append(t) }
                switch r.deleteRule {
                case .deny where !targets.isEmpty:
                    throw EngineError(
                        .deleteDenied, "\(x) cannot be deleted: its \(r.name) is not empty (deny rule)",
                        [("id", .string(x.description)), ("relationship", .string(r.name))])
                case .cascade:
                    for t in targets where doomedSet.insert(t).inserted { doomed.append(t) }
                default:
                    break
                }
            }
        }
        for x in doomed {
            guard let entity = model.entity(x.entity) else { continue }
            let xv = try get(x)
            for r in entity.relationships where r.deleteRule == .nullify {
                guard let inverse = model.inverse(of: r) else { continue }
                for t in (xv[r.name] ?? .null).objectIDs where !doomedSet.contains(t) {
                    if try exists(t) { try unlink(t, inverse, x) }
                }
            }
        }
        for x in doomed {
            if staged[x] == nil { order.append(x) }
            staged[x] = nil
            deleted.insert(x)
        }
    }

    /// Hands the staged values to the context.
    func apply() throws(EngineError) {
        for id in order {
            if deleted.contains(id) {
                try context.setPending(id, nil)
            } else if let values = staged[id] {
                try context.setPending(id, values, isNew: newIDs.contains(id))
            }
        }
    }
}
