/// The types an attribute can have; raw values are the model file's spellings.
public enum AttributeType: String, Sendable, CaseIterable {
    case string, integer, double, boolean, date, binary, uuid
}

public enum DeleteRule: String, Sendable, CaseIterable {
    case nullify, cascade, deny, noAction
}

public struct Attribute: Sendable, Equatable {
    public var name: String
    public var type: AttributeType
    public var optional: Bool
    /// Used when an insert leaves the attribute out (and by light migration).
    public var defaultValue: Value?
    public var indexed: Bool

    public init(
        name: String, type: AttributeType, optional: Bool = false, defaultValue: Value? = nil,
        indexed: Bool = false
    ) {
        self.name = name
        self.type = type
        self.optional = optional
        self.defaultValue = defaultValue
        self.indexed = indexed
    }
}

public struct Relationship: Sendable, Equatable {
    public var name: String
    public var destination: String
    public var toMany: Bool
    public var inverse: String
    public var deleteRule: DeleteRule
    public var optional: Bool

    public init(
        name: String, destination: String, toMany: Bool, inverse: String,
        deleteRule: DeleteRule = .nullify, optional: Bool = true
    ) {
        self.name = name
        self.destination = destination
        self.toMany = toMany
        self.inverse = inverse
        self.deleteRule = deleteRule
        self.optional = optional
    }
}

public struct Entity: Sendable, Equatable {
    public var name: String
    /// In declaration order; the order columns and wire objects use.
    public var attributes: [Attribute]
    public var relationships: [Relationship]

    public init(name: String, attributes: [Attribute], relationships: [Relationship] = []) {
        self.name = name
        self.attributes = attributes
        self.relationships = relationships
    }

    public func attribute(_ name: String) -> Attribute? { attributes.first { $0.name == name } }
    public func relationship(_ name: String) -> Relationship? { relationships.first { $0.name == name } }
}

/// The managed object model: every entity the store holds.
public struct ObjectModel: Sendable, Equatable {
    public var entities: [Entity] {
        didSet { (byName, derived, referencing) = Self.index(entities) }
    }
    private var byName: [String: Int]
    private var derived: [String: [Relationship]]
    private var referencing: [String: [Relationship]]

    public init(entities: [Entity]) {
        self.entities = entities
        (byName, derived, referencing) = Self.index(entities)
    }

    private static func index(_ entities: [Entity]) -> (
        [String: Int], [String: [Relationship]], [String: [Relationship]]
    ) {
        var names: [String: Int] = [:]
        for (i, e) in entities.enumerated() where names[e.name] == nil { names[e.name] = i }
        var derived: [String: [Relationship]] = [:]
        var referencing: [String: [Relationship]] = [:]
        for e in entities {
            for r in e.relationships {
                guard let d = names[r.destination], let inverse = entities[d].relationship(r.inverse) else { continue }
                if r.toMany && !inverse.toMany { derived[e.name, default: []].append(r) }
                if !r.toMany && inverse.toMany { referencing[e.name, default: []].append(r) }
            }
        }
        return (names, derived, referencing)
    }

    /// The to-many relationships of `entity` whose inverse is to-one: no column of their
    /// own, they are the inverse's column read backwards (one-to-many).
    public func derivedRelationships(of entity: String) -> [Relationship] { derived[entity] ?? [] }

    /// The to-one relationships of `entity` whose inverse is such a derived to-many.
    public func referencingRelationships(of entity: String) -> [Relationship] { referencing[entity] ?? [] }

    public func entity(_ name: String) -> Entity? { byName[name].map { entities[$0] } }

    /// Whether the model has the entity, without copying it out (a read per object asks).
    public func hasEntity(_ name: String) -> Bool { byName[name] != nil }

    /// `entity` and every entity a chain of relationships joins it to, followed either way
    /// (a relationship without an inverse still joins its two ends).
    public func connectedEntities(_ entity: String) -> Set<String> {
        var edges: [String: [String]] = [:]
        for e in entities {
            for r in e.relationships {
                edges[e.name, default: []].append(r.destination)
                edges[r.destination, default: []].append(e.name)
            }
        }
        var found: Set<String> = [entity]
        var next = [entity]
        while let e = next.popLast() {
            for d in edges[e] ?? [] where found.insert(d).inserted { next.append(d) }
        }
        return found
    }

    /// The relationship on the other side of `relationship` of `entity`.
    public func inverse(of relationship: Relationship) -> Relationship? {
        entity(relationship.destination)?.relationship(relationship.inverse)
    }

    public static func == (a: ObjectModel, b: ObjectModel) -> Bool { a.entities == b.entities }
}
