import Model

// Small test-only conformances to the query contracts (the real compiler lives in
// Predicates): enough to drive SQL and in-memory evaluation the same way.

func compareValues(_ a: Value, _ b: Value) -> Int {
    switch (a, b) {
    case (.null, .null): return 0
    case (.null, _): return -1
    case (_, .null): return 1
    case (.integer(let x), .integer(let y)): return x < y ? -1 : (x > y ? 1 : 0)
    case (.string(let x), .string(let y)):
        return x.unicodeScalars.lexicographicallyPrecedes(y.unicodeScalars) ? -1 : (x == y ? 0 : 1)
    default: return 0
    }
}

/// `key == value` on the entity's own attribute.
struct Equals: ObjectFilter {
    let entity: String
    let key: String
    let value: Value
    func sql(alias: String) -> SQLFragment { SQLFragment("\(alias).\(SchemaNaming.quoted(key)) = ?", [value]) }
    func matches(_ id: ObjectID, _ values: Snapshot, in view: ObjectView) -> Bool { values[key] == value }
    var relationshipPaths: [[String]] { [] }
}

/// `relationship.key == value` through a to-one relationship.
struct RelatedEquals: ObjectFilter {
    let entity: String
    let relationship: String
    let destination: String
    let key: String
    let value: Value
    func sql(alias: String) -> SQLFragment {
        SQLFragment(
            "(SELECT d.\(SchemaNaming.quoted(key)) FROM \(SchemaNaming.quoted(destination)) AS d WHERE d._pk = \(alias).\(SchemaNaming.quoted(relationship))) = ?",
            [value])
    }
    func matches(_ id: ObjectID, _ values: Snapshot, in view: ObjectView) -> Bool {
        guard case .object(let target)? = values[relationship] else { return false }
        return view.snapshot(of: target)?[key] == value
    }
    var relationshipPaths: [[String]] { [[relationship]] }
}

/// One attribute (string or integer), ascending or descending.
struct ByAttribute: ObjectOrdering {
    let entity: String
    let key: String
    var ascending = true
    func orderBy(alias: String) -> SQLFragment {
        SQLFragment("\(alias).\(SchemaNaming.quoted(key)) \(ascending ? "ASC" : "DESC")")
    }
    func keyColumns(alias: String) -> [SQLFragment] { [SQLFragment("\(alias).\(SchemaNaming.quoted(key))")] }
    func key(of id: ObjectID, _ values: Snapshot, in view: ObjectView) -> SortKey { [values[key] ?? .null] }
    func key(fromColumns columns: [Value]) -> SortKey { columns }
    func compare(_ a: SortKey, _ b: SortKey) -> Int {
        let c = compareValues(a[0], b[0])
        return ascending ? c : -c
    }
    var relationshipPaths: [[String]] { [] }
}
