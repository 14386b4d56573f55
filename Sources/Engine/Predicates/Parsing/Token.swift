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
    case and = "AND", or = "OR", not = "NOT"
    case any = "ANY", some = "SOME", all = "ALL", none = "NONE"
    case `in` = "IN", like = "LIKE", matches = "MATCHES", contains = "CONTAINS"
    case beginsWith = "BEGINSWITH", endsWith = "ENDSWITH", between = "BETWEEN"
    case null = "NULL", nil_ = "NIL", `self` = "SELF"
    case `true` = "TRUE", yes = "YES", `false` = "FALSE", no = "NO"
    case truePredicate = "TRUEPREDICATE", falsePredicate = "FALSEPREDICATE"
    case subquery = "SUBQUERY"

    static let byName: [String: Keyword] = Dictionary(uniqueKeysWithValues: allCases.map { ($0.rawValue, $0) })
}

enum Symbol: String, Sendable {
    case openParen = "(", closeParen = ")", openBrace = "{", closeBrace = "}"
    case openBracket = "[", closeBracket = "]", comma = ",", dot = ".", minus = "-"
    case equal = "==", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
    case andAnd = "&&", orOr = "||", bang = "!"
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
