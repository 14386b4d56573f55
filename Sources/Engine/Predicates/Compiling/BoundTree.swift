import Model

/// A predicate resolved against the model: every key validated, every constant typed, IN,
/// BETWEEN, ANY/ALL/NONE and SUBQUERY rewritten into a handful of forms that the SQL
/// generator and the in-memory evaluator each implement once.
///
/// Scopes: 0 is the evaluated object; each collection (quantifier, SUBQUERY, @count,
/// aggregate) binds its elements to the next scope number while its inner part runs.

/// A step through a to-one relationship.
struct ToOneHop: Sendable, Equatable {
    let entity: String
    let relationship: String
    let destination: String
}

/// A to-many relationship and how the store keeps it.
struct ToManyHop: Sendable, Equatable {
    enum Storage: Sendable, Equatable {
        /// One-to-many: the destination's to-one column pointing back.
        case inverseColumn(String)
        /// Many-to-many: a join table.
        case joinTable(table: String, selfColumn: String, otherColumn: String)
    }
    let entity: String
    let relationship: String
    let destination: String
    let inverse: String
    let storage: Storage
}

enum KeyTerminal: Sendable, Equatable {
    case attribute(String, AttributeType)
    /// The object reached (SELF, or a to-one relationship named last).
    case object(String)
}

struct BoundKeyPath: Sendable, Equatable {
    var scope: Int
    var hops: [ToOneHop]
    var terminal: KeyTerminal
}

/// The elements of a to-many relationship of the object `owner` reaches.
struct BoundCollection: Sendable, Equatable {
    var owner: BoundKeyPath
    var hop: ToManyHop
    var elementScope: Int
}

enum AggregateKind: String, Sendable { case sum, avg, min, max }

indirect enum BoundExpression: Sendable {
    case constant(Value)
    case key(BoundKeyPath)
    case count(BoundCollection, BoundPredicate?)
    case aggregate(AggregateKind, BoundCollection, BoundKeyPath)

    var constantValue: Value? { if case .constant(let v) = self { return v } else { return nil } }
}

indirect enum BoundPredicate: Sendable {
    case constant(Bool)
    case not(BoundPredicate)
    case and([BoundPredicate])
    case or([BoundPredicate])
    /// `textual` when both sides hold text (so SQL compares them with BINARY collation).
    /// `prepared` is set when the right side is a constant.
    case compare(
        BoundExpression, LeafOperator, ComparisonOptions, BoundExpression, textual: Bool, prepared: PreparedComparison?)
    /// ANY: some element of the collection satisfies the predicate.
    case exists(BoundCollection, BoundPredicate)
}

/// What a value can be compared with.
enum ValueClass: Equatable, Sendable, CustomStringConvertible {
    case text, uuid, number, boolean, date, binary
    case object(String)
    case null

    init(_ type: AttributeType) {
        switch type {
        case .string: self = .text
        case .uuid: self = .uuid
        case .integer, .double: self = .number
        case .boolean: self = .boolean
        case .date: self = .date
        case .binary: self = .binary
        }
    }

    /// The class a constant has by itself.
    init(of value: Value) {
        switch value {
        case .null: self = .null
        case .string: self = .text
        case .uuid: self = .uuid
        case .integer, .double: self = .number
        case .bool: self = .boolean
        case .date: self = .date
        case .binary: self = .binary
        case .object(let id): self = .object(id.entity)
        case .objects: self = .null
        }
    }

    var isTextual: Bool { self == .text || self == .uuid }
    var isNumeric: Bool { self == .number || self == .boolean }

    func comparable(with other: ValueClass) -> Bool {
        if self == .null || other == .null || self == other { return true }
        if isTextual && other.isTextual { return true }
        return isNumeric && other.isNumeric
    }

    var description: String {
        switch self {
        case .text: return "string"
        case .uuid: return "uuid"
        case .number: return "number"
        case .boolean: return "boolean"
        case .date: return "date"
        case .binary: return "binary"
        case .object(let e): return "object of \(e)"
        case .null: return "null"
        }
    }
}
