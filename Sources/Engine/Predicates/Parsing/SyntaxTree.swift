/// The parsed form of a predicate format string, before it meets a model.
///
/// Offsets are Unicode-scalar positions in the source, kept so later errors (unknown keys,
/// type mismatches) can name where the problem is.
public indirect enum PredicateSyntaxTree: Equatable, Sendable {
    case constant(Bool)
    case not(PredicateSyntaxTree)
    case and([PredicateSyntaxTree])
    case or([PredicateSyntaxTree])
    case comparison(ComparisonSyntax)
}

public enum Quantifier: String, Sendable {
    case anyOf = "ANY"
    case allOf = "ALL"
    case noneOf = "NONE"
}

public enum ComparisonOperator: String, Sendable, CaseIterable {
    case equal = "=="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
    case between = "BETWEEN"
    case `in` = "IN"
    case contains = "CONTAINS"
    case beginsWith = "BEGINSWITH"
    case endsWith = "ENDSWITH"
    case like = "LIKE"
    case matches = "MATCHES"
}

/// `[c]`, `[d]`, `[n]` in any combination. `n` (inputs already normalized) changes nothing.
public struct ComparisonOptions: OptionSet, Hashable, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let caseInsensitive = ComparisonOptions(rawValue: 1)
    public static let diacriticInsensitive = ComparisonOptions(rawValue: 2)
    public static let normalized = ComparisonOptions(rawValue: 4)
    /// The options that change a comparison's result.
    public var folding: ComparisonOptions { intersection([.caseInsensitive, .diacriticInsensitive]) }
}

public struct ComparisonSyntax: Equatable, Sendable {
    public var quantifier: Quantifier?
    public var lhs: ExpressionSyntax
    public var op: ComparisonOperator
    public var options: ComparisonOptions
    public var rhs: ExpressionSyntax
    /// Where the operator is.
    public var offset: Int
}

public enum LiteralSyntax: Equatable, Sendable {
    case string(String)
    case integer(Int64)
    case real(Double)
    case bool(Bool)
    case null
}

public indirect enum ExpressionSyntax: Equatable, Sendable {
    case literal(LiteralSyntax, offset: Int)
    case keyPath(KeyPathSyntax)
    /// `{a, b, ...}`
    case list([ExpressionSyntax], offset: Int)
}

/// A key path from some root: `name`, `author.name`, `SELF`, `$x.title`, `books.@count`,
/// `SUBQUERY(books, $b, ...).@count`.
public struct KeyPathSyntax: Equatable, Sendable {
    public indirect enum Root: Equatable, Sendable {
        /// The evaluated object (a plain `name`).
        case object
        /// `SELF`: also the evaluated object, also inside a SUBQUERY.
        case selfObject
        case variable(String)
        case subquery(collection: KeyPathSyntax, variable: String, predicate: PredicateSyntaxTree)
    }
    public var root: Root
    /// Dotted components after the root; collection operators keep their `@`.
    public var components: [String]
    public var offset: Int

    public var text: String {
        var head: String
        switch root {
        case .object: head = ""
        case .selfObject: head = "SELF"
        case .variable(let v): head = "$" + v
        case .subquery: head = "SUBQUERY(...)"
        }
        if head.isEmpty { return components.joined(separator: ".") }
        return ([head] + components).joined(separator: ".")
    }
}
