import Model

/// A bound predicate turned into a tree of small objects for in-memory evaluation: each
/// node holds what it needs precomputed (key names, prepared comparisons), and evaluating
/// one is a method call, not a pattern match that copies payloads. The SQL generator
/// implements the same forms; `ValueComparison`, `TextPattern` and `Aggregates` are shared.
protocol PredicateNode: AnyObject, Sendable {
    func test(_ c: inout EvaluationContext) -> Bool
}

protocol ValueNode: AnyObject, Sendable {
    func value(_ c: inout EvaluationContext) -> Value
}

enum MemoryProgram {
    static func predicate(_ p: BoundPredicate) -> any PredicateNode {
        switch p {
        case .constant(let b): return ConstantNode(b)
        case .not(let inner): return NotNode(predicate(inner))
        case .and(let ps): return AndNode(ps.map(predicate))
        case .or(let ps): return OrNode(ps.map(predicate))
        case .compare(let l, let op, let options, let r, _, let prepared):
            if let prepared, case .key(let k) = l, k.hops.isEmpty, case .attribute(let name, _) = k.terminal {
                return AttributeComparisonNode(name, scope: k.scope, prepared)
            }
            return ComparisonNode(value(l), op, options, value(r), prepared)
        case .exists(let coll, let inner): return ExistsNode(CollectionNode(coll), predicate(inner))
        }
    }

    static func value(_ e: BoundExpression) -> any ValueNode {
        switch e {
        case .constant(let v): return ConstantValueNode(v)
        case .key(let k): return KeyNode(k)
        case .count(let coll, let filter): return CountNode(CollectionNode(coll), filter.map(predicate))
        case .aggregate(let kind, let coll, let k): return AggregateNode(kind, CollectionNode(coll), KeyNode(k))
        }
    }
}

// MARK: Predicates

private final class ConstantNode: PredicateNode {
    let result: Bool
    init(_ result: Bool) { self.result = result }
    func test(_ c: inout EvaluationContext) -> Bool { result }
}

private final class NotNode: PredicateNode {
    let inner: any PredicateNode
    init(_ inner: any PredicateNode) { self.inner = inner }
    func test(_ c: inout EvaluationContext) -> Bool { !inner.test(&c) }
}

private final class AndNode: PredicateNode {
    let terms: [any PredicateNode]
    init(_ terms: [any PredicateNode]) { self.terms = terms }
    func test(_ c: inout EvaluationContext) -> Bool {
        for t in terms where !t.test(&c) { return false }
        return true
    }
}

private final class OrNode: PredicateNode {
    let terms: [any PredicateNode]
    init(_ terms: [any PredicateNode]) { self.terms = terms }
    func test(_ c: inout EvaluationContext) -> Bool {
        for t in terms where t.test(&c) { return true }
        return false
    }
}

/// `attribute OP constant` on an object in scope: the common leaf, one lookup and one test.
private final class AttributeComparisonNode: PredicateNode {
    let name: String
    let scope: Int
    let prepared: PreparedComparison
    init(_ name: String, scope: Int, _ prepared: PreparedComparison) {
        self.name = name
        self.scope = scope
        self.prepared = prepared
    }
    func test(_ c: inout EvaluationContext) -> Bool { prepared.evaluate(c.value(name, scope: scope)) }
}

private final class ComparisonNode: PredicateNode {
    let lhs: any ValueNode
    let op: LeafOperator
    let options: ComparisonOptions
    let rhs: any ValueNode
    let prepared: PreparedComparison?
    init(
        _ lhs: any ValueNode, _ op: LeafOperator, _ options: ComparisonOptions, _ rhs: any ValueNode,
        _ prepared: PreparedComparison?
    ) {
        self.lhs = lhs
        self.op = op
        self.options = options
        self.rhs = rhs
        self.prepared = prepared
    }
    func test(_ c: inout EvaluationContext) -> Bool {
        let a = lhs.value(&c)
        if let prepared { return prepared.evaluate(a) }
        return ValueComparison.evaluate(op, options, a, rhs.value(&c))
    }
}

/// ANY: some element satisfies the inner predicate (ALL and NONE are NOTs around it).
private final class ExistsNode: PredicateNode {
    let collection: CollectionNode
    let inner: any PredicateNode
    init(_ collection: CollectionNode, _ inner: any PredicateNode) {
        self.collection = collection
        self.inner = inner
    }
    func test(_ c: inout EvaluationContext) -> Bool {
        for (id, values) in collection.elements(&c) {
            c.push(collection.elementScope, id, values)
            let hit = inner.test(&c)
            c.pop()
            if hit { return true }
        }
        return false
    }
}

// MARK: Values

private final class ConstantValueNode: ValueNode {
    let constant: Value
    init(_ constant: Value) { self.constant = constant }
    func value(_ c: inout EvaluationContext) -> Value { constant }
}

/// A key path: an attribute or the object reached, through to-one relationships. A nil or
/// missing object on the way gives nil, as SQL's correlated subqueries do.
final class KeyNode: ValueNode {
    let scope: Int
    let hops: [String]
    /// nil when the key path names an object rather than an attribute.
    let attribute: String?

    init(_ k: BoundKeyPath) {
        scope = k.scope
        hops = k.hops.map(\.relationship)
        if case .attribute(let name, _) = k.terminal { attribute = name } else { attribute = nil }
    }

    func value(_ c: inout EvaluationContext) -> Value {
        guard !hops.isEmpty else {
            if let attribute { return c.value(attribute, scope: scope) }
            return .object(c.id(scope: scope))
        }
        var values = c.values(scope: scope)
        let last = hops.count - 1
        for (n, hop) in hops.enumerated() {
            guard case .object(let target)? = values[hop] else { return .null }
            // The last hop to an object needs only the id, as SQL reads only the column.
            if n == last && attribute == nil { return .object(target) }
            guard let next = c.view.snapshot(of: target) else { return .null }
            values = next
        }
        guard let attribute else { return .null }
        return values[attribute] ?? .null
    }
}

/// The existing elements of a to-many relationship of the object a key path reaches.
final class CollectionNode: Sendable {
    let owner: KeyNode
    let ownerIsScope: Bool
    let relationship: String
    let destination: String
    let inverse: String
    let inverseIsColumn: Bool
    let elementScope: Int

    init(_ coll: BoundCollection) {
        owner = KeyNode(coll.owner)
        ownerIsScope = coll.owner.hops.isEmpty
        relationship = coll.hop.relationship
        destination = coll.hop.destination
        inverse = coll.hop.inverse
        if case .inverseColumn = coll.hop.storage { inverseIsColumn = true } else { inverseIsColumn = false }
        elementScope = coll.elementScope
    }

    func elements(_ c: inout EvaluationContext) -> [(ObjectID, Snapshot)] {
        guard case .object(let ownerID) = owner.value(&c) else { return [] }
        let ownerValues: Snapshot? = ownerIsScope ? c.values(scope: owner.scope) : c.view.snapshot(of: ownerID)
        guard let ownerValues else { return [] }
        let ids: [ObjectID]
        if case .objects(let list)? = ownerValues[relationship] {
            ids = list
        } else if inverseIsColumn {
            ids = c.view.referrers(of: ownerID, entity: destination, relationship: inverse)
        } else {
            ids = []
        }
        var out: [(ObjectID, Snapshot)] = []
        out.reserveCapacity(ids.count)
        for id in ids { if let s = c.view.snapshot(of: id) { out.append((id, s)) } }
        return out
    }
}

private final class CountNode: ValueNode {
    let collection: CollectionNode
    let filter: (any PredicateNode)?
    init(_ collection: CollectionNode, _ filter: (any PredicateNode)?) {
        self.collection = collection
        self.filter = filter
    }
    func value(_ c: inout EvaluationContext) -> Value {
        let all = collection.elements(&c)
        guard let filter else { return .integer(Int64(all.count)) }
        var n: Int64 = 0
        for (id, values) in all {
            c.push(collection.elementScope, id, values)
            if filter.test(&c) { n += 1 }
            c.pop()
        }
        return .integer(n)
    }
}

private final class AggregateNode: ValueNode {
    let kind: AggregateKind
    let collection: CollectionNode
    let key: KeyNode
    init(_ kind: AggregateKind, _ collection: CollectionNode, _ key: KeyNode) {
        self.kind = kind
        self.collection = collection
        self.key = key
    }
    func value(_ c: inout EvaluationContext) -> Value {
        var values: [Value] = []
        for (id, snapshot) in collection.elements(&c) {
            c.push(collection.elementScope, id, snapshot)
            values.append(key.value(&c))
            c.pop()
        }
        switch kind {
        case .sum: return Aggregates.sum(values)
        case .avg: return Aggregates.average(values)
        case .min, .max:
            var best: Value = .null
            for v in values where !v.isNull {
                if best.isNull {
                    best = v
                    continue
                }
                let order = ScalarOrder.compare(v, best) ?? 0
                if (kind == .min && order < 0) || (kind == .max && order > 0) { best = v }
            }
            return best
        }
    }
}
