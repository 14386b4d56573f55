import Model

/// A compiled predicate: the same bound tree run as SQL or in memory.
struct CompiledFilter: ObjectFilter {
    let entity: String
    let tree: BoundPredicate
    let relationshipPaths: [[String]]
    /// `attribute OP constant`, the most common predicate, skips the general evaluator.
    private let simple: (attribute: String, comparison: PreparedComparison)?

    init(entity: String, tree: BoundPredicate, relationshipPaths: [[String]]) {
        self.entity = entity
        self.tree = tree
        self.relationshipPaths = relationshipPaths
        if case .compare(.key(let k), _, _, _, _, let prepared?) = tree, k.scope == 0, k.hops.isEmpty,
           case .attribute(let name, _) = k.terminal {
            simple = (name, prepared)
        } else {
            simple = nil
        }
    }

    func sql(alias: String) -> SQLFragment {
        var g = SQLGenerator(alias: alias)
        g.predicate(tree)
        return g.fragment
    }

    func matches(_ id: ObjectID, _ values: Snapshot, in view: ObjectView) -> Bool {
        if let simple { return simple.comparison.evaluate(values[simple.attribute] ?? .null) }
        var evaluator = MemoryEvaluator(view: view, id: id, values: values)
        return evaluator.evaluate(tree)
    }
}
