import Model

/// Compiles fetch requests against one model, caching by request: a controller or a
/// repeated fetch compiles its request once.
public final class RequestCompiler {
    public let model: ObjectModel
    /// Compiled requests kept; the cache starts over when it is full.
    public static let cacheLimit = 512

    private var compiled: [RequestKey: CompiledRequest] = [:]
    /// By the predicate's bytes (see RequestKey).
    private var parsed: [[UInt8]: PredicateSyntaxTree] = [:]

    public init(model: ObjectModel) {
        self.model = model
    }

    public func compile(_ request: FetchRequest, sectionNameKeyPath: String? = nil) throws(EngineError)
        -> CompiledRequest
    {
        let key = RequestKey(request: request, sectionNameKeyPath: sectionNameKeyPath)
        if let hit = compiled[key] { return hit }
        guard let entity = model.entity(request.entity) else { throw CompileError.unknownEntity(request.entity) }
        let filter = try compileFilter(request, entity)
        let ordering = try compileOrdering(request.sortDescriptors, sectionNameKeyPath: sectionNameKeyPath, entity)
        let result = CompiledRequest(
            request: request, filter: filter, ordering: ordering, sectionNameKeyPath: sectionNameKeyPath)
        if compiled.count >= RequestCompiler.cacheLimit { compiled.removeAll(keepingCapacity: true) }
        compiled[key] = result
        return result
    }

    /// Parses (once per predicate text) and binds a predicate on `entity`.
    func compileFilter(_ request: FetchRequest, _ entity: Entity) throws(EngineError) -> CompiledFilter {
        guard let text = request.predicate else {
            return CompiledFilter(entity: entity.name, tree: .constant(true), relationshipPaths: [], readAttributes: [])
        }
        let tree: PredicateSyntaxTree
        let bytes = Array(text.utf8)
        if let hit = parsed[bytes] {
            tree = hit
        } else {
            tree = try PredicateParser.parse(text)
            if parsed.count >= RequestCompiler.cacheLimit { parsed.removeAll(keepingCapacity: true) }
            parsed[bytes] = tree
        }
        return try Self.bind(tree, request, entity, model: model)
    }

    /// Binds a parsed predicate (all of `request`'s, or part of it) on `entity`.
    static func bind(_ tree: PredicateSyntaxTree, _ request: FetchRequest, _ entity: Entity, model: ObjectModel)
        throws(EngineError) -> CompiledFilter
    {
        var binder = Binder(
            model: model, root: entity, variables: request.variables, lists: request.listVariables,
            source: request.predicate ?? "")
        let bound = try binder.bind(tree)
        return CompiledFilter(
            entity: entity.name, tree: bound,
            relationshipPaths: binder.relationshipPaths.sorted { $0.lexicographicallyPrecedes($1) },
            readAttributes: binder.rootAttributes)
    }

    func compileOrdering(_ descriptors: [SortDescriptor], sectionNameKeyPath: String?, _ entity: Entity)
        throws(EngineError) -> CompiledOrdering
    {
        var all = descriptors
        if let section = sectionNameKeyPath, all.first?.key != section {
            all.insert(SortDescriptor(key: section, ascending: true, comparator: .compare), at: 0)
        }
        var components: [CompiledOrdering.Component] = []
        var paths = Set<[String]>()
        for d in all {
            let (key, path) = try sortKey(d.key, entity)
            for n in path.indices { paths.insert(Array(path[...n])) }
            components.append(.init(key: key, ascending: d.ascending, comparator: d.comparator))
        }
        return CompiledOrdering(
            entity: entity.name, components: components,
            relationshipPaths: paths.sorted { $0.lexicographicallyPrecedes($1) })
    }

    /// A sort key path: attributes and to-one relationships only.
    private func sortKey(_ text: String, _ root: Entity) throws(EngineError) -> (BoundKeyPath, [String]) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var entity = root
        var hops: [ToOneHop] = []
        var path: [String] = []
        for (i, name) in parts.enumerated() {
            let last = i == parts.count - 1
            if let a = entity.attribute(name) {
                guard last else {
                    throw CompileError.unknownKey(entity: entity.name, key: parts[i...].joined(separator: "."))
                }
                return (BoundKeyPath(scope: 0, hops: hops, terminal: .attribute(a.name, a.type)), path)
            }
            guard let r = entity.relationship(name) else {
                throw CompileError.unknownKey(entity: entity.name, key: name)
            }
            guard !r.toMany else {
                throw CompileError.typeMismatch(
                    entity: root.name, key: text, expected: "a sort key through to-one relationships",
                    got: "to-many relationship \(name)")
            }
            guard let destination = model.entity(r.destination) else { throw CompileError.unknownEntity(r.destination) }
            hops.append(ToOneHop(entity: entity.name, relationship: name, destination: destination.name))
            path.append(name)
            entity = destination
            if last { return (BoundKeyPath(scope: 0, hops: hops, terminal: .object(destination.name)), path) }
        }
        throw CompileError.unknownKey(entity: root.name, key: text)
    }
}
