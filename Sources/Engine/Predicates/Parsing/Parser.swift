import Model

/// Recursive-descent parser for the NSPredicate format syntax.
///
/// Precedence, loosest first: OR (`||`), AND (`&&`), NOT (`!`), then comparisons. Apple does
/// not document AND/OR precedence; we use the C/SQL order. Nesting is bounded so that a
/// hostile `((((...` is an error rather than a stack overflow.
public struct PredicateParser {
    /// Deepest nesting of parentheses, NOTs, lists and subqueries accepted.
    public static let maxDepth = 100

    private let source: String
    private let tokens: [Token]
    private var position = 0
    private var depth = 0

    private init(source: String, tokens: [Token]) {
        self.source = source
        self.tokens = tokens
    }

    public static func parse(_ source: String) throws(EngineError) -> PredicateSyntaxTree {
        var parser = PredicateParser(source: source, tokens: try Lexer.tokens(of: source))
        if parser.current.kind == .end { throw parser.error(expected: "a predicate") }
        let tree = try parser.predicate()
        guard parser.current.kind == .end else { throw parser.error(expected: "AND, OR or the end of the predicate") }
        return tree
    }

    // MARK: Tokens

    private var current: Token { tokens[position] }
    private mutating func advance() { if position < tokens.count - 1 { position += 1 } }

    private func error(expected: String) -> EngineError {
        PredicateSyntax.error(source, offset: current.offset, expected: expected)
    }

    private mutating func take(_ symbol: Symbol) -> Bool {
        if current.kind == .symbol(symbol) {
            advance()
            return true
        }
        return false
    }

    private mutating func take(_ keyword: Keyword) -> Bool {
        if current.kind == .keyword(keyword) {
            advance()
            return true
        }
        return false
    }

    private mutating func expect(_ symbol: Symbol, _ what: String) throws(EngineError) {
        guard take(symbol) else { throw error(expected: what) }
    }

    private mutating func nest() throws(EngineError) {
        depth += 1
        if depth > PredicateParser.maxDepth {
            throw error(expected: "at most \(PredicateParser.maxDepth) levels of nesting")
        }
    }

    // MARK: Predicates

    private mutating func predicate() throws(EngineError) -> PredicateSyntaxTree {
        var terms = [try conjunction()]
        while take(.or) || take(.orOr) { terms.append(try conjunction()) }
        return terms.count == 1 ? terms[0] : .or(terms)
    }

    private mutating func conjunction() throws(EngineError) -> PredicateSyntaxTree {
        var terms = [try negation()]
        while take(.and) || take(.andAnd) { terms.append(try negation()) }
        return terms.count == 1 ? terms[0] : .and(terms)
    }

    private mutating func negation() throws(EngineError) -> PredicateSyntaxTree {
        if take(.not) || take(.bang) {
            try nest()
            defer { depth -= 1 }
            return .not(try negation())
        }
        if take(.openParen) {
            try nest()
            defer { depth -= 1 }
            let inner = try predicate()
            try expect(.closeParen, "')'")
            return inner
        }
        if take(.truePredicate) { return .constant(true) }
        if take(.falsePredicate) { return .constant(false) }
        return .comparison(try comparison())
    }

    private mutating func comparison() throws(EngineError) -> ComparisonSyntax {
        var quantifier: Quantifier?
        if take(.any) || take(.some) {
            quantifier = .anyOf
        } else if take(.all) {
            quantifier = .allOf
        } else if take(.none) {
            quantifier = .noneOf
        }
        let lhs = try expression()
        let offset = current.offset
        let op: ComparisonOperator
        switch current.kind {
        case .symbol(.equal): op = .equal
        case .symbol(.notEqual): op = .notEqual
        case .symbol(.less): op = .less
        case .symbol(.lessOrEqual): op = .lessOrEqual
        case .symbol(.greater): op = .greater
        case .symbol(.greaterOrEqual): op = .greaterOrEqual
        case .keyword(.between): op = .between
        case .keyword(.in): op = .in
        case .keyword(.contains): op = .contains
        case .keyword(.beginsWith): op = .beginsWith
        case .keyword(.endsWith): op = .endsWith
        case .keyword(.like): op = .like
        case .keyword(.matches): op = .matches
        default: throw error(expected: "a comparison operator")
        }
        advance()
        let options = try comparisonOptions()
        let rhs = try expression()
        return ComparisonSyntax(quantifier: quantifier, lhs: lhs, op: op, options: options, rhs: rhs, offset: offset)
    }

    /// `[c]`, `[d]`, `[cd]`, `[n]`... directly after the operator; lower-case letters only.
    private mutating func comparisonOptions() throws(EngineError) -> ComparisonOptions {
        guard take(.openBracket) else { return [] }
        guard case .identifier(let letters) = current.kind else {
            throw error(expected: "comparison options c, d or n")
        }
        var options: ComparisonOptions = []
        for letter in letters {
            switch letter {
            case "c": options.insert(.caseInsensitive)
            case "d": options.insert(.diacriticInsensitive)
            case "n": options.insert(.normalized)
            default: throw error(expected: "comparison options c, d or n")
            }
        }
        advance()
        try expect(.closeBracket, "']'")
        return options
    }

    // MARK: Expressions

    private mutating func expression() throws(EngineError) -> ExpressionSyntax {
        let start = current.offset
        switch current.kind {
        case .string(let s):
            advance()
            return .literal(.string(s), offset: start)
        case .integer(let v):
            advance()
            return .literal(.integer(v), offset: start)
        case .real(let v):
            advance()
            return .literal(.real(v), offset: start)
        case .keyword(.true), .keyword(.yes):
            advance()
            return .literal(.bool(true), offset: start)
        case .keyword(.false), .keyword(.no):
            advance()
            return .literal(.bool(false), offset: start)
        case .keyword(.null), .keyword(.nil_):
            advance()
            return .literal(.null, offset: start)
        case .symbol(.minus):
            advance()
            switch current.kind {
            case .integer(let v):
                advance()
                return .literal(.integer(-v), offset: start)
            case .real(let v):
                advance()
                return .literal(.real(-v), offset: start)
            default: throw error(expected: "a number after '-'")
            }
        case .symbol(.openBrace):
            advance()
            try nest()
            defer { depth -= 1 }
            var items: [ExpressionSyntax] = []
            if !take(.closeBrace) {
                repeat { items.append(try expression()) } while take(.comma)
                try expect(.closeBrace, "',' or '}'")
            }
            return .list(items, offset: start)
        case .keyword(.self):
            advance()
            return .keyPath(KeyPathSyntax(root: .selfObject, components: try components(), offset: start))
        case .variable(let name):
            advance()
            return .keyPath(KeyPathSyntax(root: .variable(name), components: try components(), offset: start))
        case .identifier(let name):
            advance()
            return .keyPath(KeyPathSyntax(root: .object, components: [name] + (try components()), offset: start))
        case .collectionOperator(let name):
            advance()
            return .keyPath(KeyPathSyntax(root: .object, components: ["@" + name] + (try components()), offset: start))
        case .keyword(.subquery):
            advance()
            return .keyPath(try subquery(start))
        default:
            throw error(expected: "a key path, literal, $variable or {list}")
        }
    }

    /// `.key.@op.key...` after a root; a keyword after a dot is read as a key.
    private mutating func components() throws(EngineError) -> [String] {
        var out: [String] = []
        while take(.dot) {
            switch current.kind {
            case .identifier(let name): out.append(name)
            case .keyword(let k): out.append(k.rawValue.lowercased())
            case .collectionOperator(let name): out.append("@" + name)
            default: throw error(expected: "a key after '.'")
            }
            advance()
        }
        return out
    }

    private mutating func subquery(_ start: Int) throws(EngineError) -> KeyPathSyntax {
        try nest()
        defer { depth -= 1 }
        try expect(.openParen, "'(' after SUBQUERY")
        guard case .keyPath(let collection) = try expression() else {
            throw PredicateSyntax.error(
                source, offset: start, expected: "a collection key path as SUBQUERY's first argument")
        }
        try expect(.comma, "',' after the SUBQUERY collection")
        guard case .variable(let variable) = current.kind else {
            throw error(expected: "a $variable as SUBQUERY's second argument")
        }
        advance()
        try expect(.comma, "',' after the SUBQUERY variable")
        let inner = try predicate()
        try expect(.closeParen, "')' closing SUBQUERY")
        return KeyPathSyntax(
            root: .subquery(collection: collection, variable: variable, predicate: inner),
            components: try components(), offset: start)
    }
}
