import Model

/// A compiled predicate: the same bound tree run as SQL or in memory.
struct CompiledFilter: ObjectFilter {
    let entity: String
    let tree: BoundPredicate
    let relationshipPaths: [[String]]
    let readAttributes: Set<String>?
    private let program: any PredicateNode
    /// `attribute OP constant`, the most common predicate, skips the general evaluator.
    private let simpleAttribute: String?
    private let simpleComparison: PreparedComparison?

    init(entity: String, tree: BoundPredicate, relationshipPaths: [[String]], readAttributes: Set<String>? = nil) {
        self.entity = entity
        self.tree = tree
        self.relationshipPaths = relationshipPaths
        self.readAttributes = readAttributes
        self.program = MemoryProgram.predicate(tree)
        if case .compare(.key(let k), _, _, _, _, let prepared?) = tree, k.scope == 0, k.hops.isEmpty,
            case .attribute(let name, _) = k.terminal
        {
            simpleAttribute = name
            simpleComparison = prepared
        } else {
            simpleAttribute = nil
            simpleComparison = nil
        }
    }

    var attributeTest: (attribute: String, test: @Sendable (Value) -> Bool)? {
        guard let simpleAttribute, let simpleComparison else { return nil }
        return (simpleAttribute, { simpleComparison.evaluate($0) })
    }

    func sql(alias: String) -> SQLFragment {
        var g = SQLGenerator(alias: alias)
        g.predicate(tree)
        return g.fragment
    }

    func matches(_ id: ObjectID, _ values: Snapshot, in view: ObjectView) -> Bool {
        if let simpleComparison, let simpleAttribute {
            return simpleComparison.evaluate(values[simpleAttribute] ?? .null)
        }
        var context = EvaluationContext(view: view, id: id, values: values)
        return program.test(&context)
    }
}
