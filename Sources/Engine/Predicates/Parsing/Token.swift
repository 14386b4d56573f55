/// One lexical unit of a predicate format string, with the offset (in Unicode scalars from
/// the start of the string) that error messages point at.
struct Token: Equatable, Sendable {
    enum Kind: Equatable, Sendable {
        case identifier(String)
        /// A reserved word, upper-cased (`and` and `AND` are the same keyword).
        case keyword(Keyword)
        /// `@count`, `@sum`, ...: a collection operator, lower-cased as written after `@`.
        case collectionOperator(String)
        case variable(String)
        case string(String)
        case integer(Int64)
        case real(Double)
        case symbol(Symbol)
        case end
    }

    var kind: Kind
    var offset: Int
}

/// Reserved words. Anything else is an identifier; `#word` makes a reserved word an identifier.
enum Keyword: String, CaseIterable, Sendable {
    case and = "AND"
    case or = "OR"
    case not = "NOT"
    case any = "ANY"
    case some = "SOME"
    case all = "ALL"
    case none = "NONE"
    case `in` = "IN"
    case like = "LIKE"
    case matches = "MATCHES"
    case contains = "CONTAINS"
    case beginsWith = "BEGINSWITH"
    case endsWith = "ENDSWITH"
    case between = "BETWEEN"
    case null = "NULL"
    case nil_ = "NIL"
    case `self` = "SELF"
    case `true` = "TRUE"
    case yes = "YES"
    case `false` = "FALSE"
    case no = "NO"
    case truePredicate = "TRUEPREDICATE"
    case falsePredicate = "FALSEPREDICATE"
    case subquery = "SUBQUERY"

    static let byName: [String: Keyword] = Dictionary(uniqueKeysWithValues: allCases.map { ($0.rawValue, $0) })
}

enum Symbol: String, Sendable {
    case openParen = "("
    case closeParen = ")"
    case openBrace = "{"
    case closeBrace = "}"
    case openBracket = "["
    case closeBracket = "]"
    case comma = ","
    case dot = "."
    case minus = "-"
    case equal = "=="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
    case andAnd = "&&"
    case orOr = "||"
    case bang = "!"
}

extension Token.Kind {
    /// How an error message names this token.
    var spelling: String {
        switch self {
        case .identifier(let s): return "identifier '\(s)'"
        case .keyword(let k): return k.rawValue
        case .collectionOperator(let s): return "@\(s)"
        case .variable(let s): return "$\(s)"
        case .string: return "a string"
        case .integer, .real: return "a number"
        case .symbol(let s): return "'\(s.rawValue)'"
        case .end: return "the end of the predicate"
        }
    }
}
