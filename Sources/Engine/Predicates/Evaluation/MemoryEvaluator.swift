import Model

/// Evaluates a bound predicate on objects in memory, following relationships through an
/// ObjectView. The SQL generator implements the same forms; `ValueComparison`,
/// `TextPattern` and `Aggregates` are shared by both.
struct MemoryEvaluator {
    /// An element bound by a collection: scope n is `frames[n - 1]` (scope 0 is the root).
    struct Frame {
        var id: ObjectID
        var values: Snapshot
    }

    let view: ObjectView
    let rootID: ObjectID
    let rootValues: Snapshot
    var frames: [Frame] = []

    init(view: ObjectView, id: ObjectID, values: Snapshot) {
        self.view = view
        self.rootID = id
        self.rootValues = values
    }

    mutating func evaluate(_ p: BoundPredicate) -> Bool {
        switch p {
        case .constant(let b): return b
        case .not(let inner): return !evaluate(inner)
        case .and(let ps):
            for q in ps where !evaluate(q) { return false }
            return true
        case .or(let ps):
            for q in ps where evaluate(q) { return true }
            return false
        case .compare(let l, let op, let options, let r, _, let prepared):
            let a = value(l)
            if let prepared { return prepared.evaluate(a) }
            return ValueComparison.evaluate(op, options, a, value(r))
        case .exists(let coll, let inner):
            let scope = coll.elementScope
            for (id, values) in elements(coll) {
                push(scope, id, values)
                let hit = evaluate(inner)
                frames.removeLast()
                if hit { return true }
            }
            return false
        }
    }

    mutating func value(_ e: BoundExpression) -> Value {
        switch e {
        case .constant(let v): return v
        case .key(let k): return value(k)
        case .count(let coll, let filter):
            let all = elements(coll)
            guard let filter else { return .integer(Int64(all.count)) }
            var n: Int64 = 0
            for (id, values) in all {
                push(coll.elementScope, id, values)
                if evaluate(filter) { n += 1 }
                frames.removeLast()
            }
            return .integer(n)
        case .aggregate(let kind, let coll, let key):
            var values: [Value] = []
            for (id, snapshot) in elements(coll) {
                push(coll.elementScope, id, snapshot)
                values.append(value(key))
                frames.removeLast()
            }
            switch kind {
            case .sum: return Aggregates.sum(values)
            case .avg: return Aggregates.average(values)
            case .min, .max:
                var best: Value = .null
                for v in values where !v.isNull {
                    if best.isNull { best = v; continue }
                    let c = ScalarOrder.compare(v, best) ?? 0
                    if (kind == .min && c < 0) || (kind == .max && c > 0) { best = v }
                }
                return best
            }
        }
    }

    @inline(__always)
    func value(_ k: BoundKeyPath) -> Value {
        var id: ObjectID
        var values: Snapshot
        if k.scope == 0 { id = rootID; values = rootValues } else { id = frames[k.scope - 1].id; values = frames[k.scope - 1].values }
        for (n, hop) in k.hops.enumerated() {
            guard case .object(let target)? = values[hop.relationship] else { return .null }
            id = target
            // The last hop to an object needs only the id, as SQL reads only the column.
            if n == k.hops.count - 1, case .object = k.terminal { return .object(target) }
            guard let next = view.snapshot(of: target) else { return .null }
            values = next
        }
        switch k.terminal {
        case .attribute(let name, _): return values[name] ?? .null
        case .object: return .object(id)
        }
    }

    private mutating func push(_ scope: Int, _ id: ObjectID, _ values: Snapshot) {
        precondition(frames.count == scope - 1, "scopes nest")
        frames.append(Frame(id: id, values: values))
    }

    /// The existing elements of a collection, ascending by id.
    private func elements(_ coll: BoundCollection) -> [(ObjectID, Snapshot)] {
        guard case .object(let owner) = value(coll.owner) else { return [] }
        let ownerValues: Snapshot?
        if coll.owner.hops.isEmpty {
            ownerValues = coll.owner.scope == 0 ? rootValues : frames[coll.owner.scope - 1].values
        } else {
            ownerValues = view.snapshot(of: owner)
        }
        guard let ownerValues else { return [] }
        var ids: [ObjectID]
        if case .objects(let list)? = ownerValues[coll.hop.relationship] {
            ids = list
        } else if case .inverseColumn = coll.hop.storage {
            ids = view.referrers(of: owner, entity: coll.hop.destination, relationship: coll.hop.inverse)
        } else {
            ids = []
        }
        var out: [(ObjectID, Snapshot)] = []
        out.reserveCapacity(ids.count)
        for id in ids { if let s = view.snapshot(of: id) { out.append((id, s)) } }
        return out
    }
}
