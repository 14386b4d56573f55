import Model

extension RequestCompiler {
    /// A predicate over result rows rather than objects (a dictionary fetch's havingPredicate):
    /// `columns` are its only keys, as attributes of a stand-in entity, so the one evaluator
    /// and its comparisons apply to rows too.
    public static func rowFilter(_ predicate: String, entity: String, columns: [(name: String, type: AttributeType)])
        throws(EngineError) -> any ObjectFilter
    {
        let row = Entity(
            name: entity, attributes: columns.map { Attribute(name: $0.name, type: $0.type, optional: true) })
        return try RequestCompiler(model: ObjectModel(entities: [row])).compile(
            FetchRequest(entity: entity, predicate: predicate)
        ).filter
    }
}
