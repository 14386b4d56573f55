import Model
import Predicates

/// Structural proof that a new request matches a subset of what an old one matched, so
/// setRequest can filter the rows it holds instead of querying (protocol.md §9). Sound, not
/// complete: a false "no" only costs a query. Recognized: the new predicate's conjuncts
/// include each old conjunct, or extend an old `BEGINSWITH` literal on the same key path
/// (no folding options, or `[c]` over ASCII); any predicate narrows a nil one. Variables
/// must be equal.
enum RequestNarrowing {
    static func narrows(_ new: FetchRequest, from old: FetchRequest) -> Bool {
        guard new.entity == old.entity, new.variables == old.variables, new.listVariables == old.listVariables
        else { return false }
        guard let oldText = old.predicate else { return true }
        guard let newText = new.predicate, let oldTree = try? PredicateParser.parse(oldText),
            let newTree = try? PredicateParser.parse(newText)
        else { return false }
        let newTerms = conjuncts(stripped(newTree))
        return conjuncts(stripped(oldTree)).allSatisfy { old in newTerms.contains { implies($0, old) } }
    }

    static func conjuncts(_ tree: PredicateSyntaxTree) -> [PredicateSyntaxTree] {
        if case .and(let parts) = tree { return parts.flatMap(conjuncts) }
        return [tree]
    }

    /// Whether `a` alone implies `b`.
    static func implies(_ a: PredicateSyntaxTree, _ b: PredicateSyntaxTree) -> Bool {
        if a == b { return true }
        if case .constant(true) = b { return true }
        guard case .comparison(let x) = a, case .comparison(let y) = b, x.op == .beginsWith, y.op == .beginsWith,
            x.quantifier == nil, y.quantifier == nil, x.lhs == y.lhs, x.options == y.options,
            case .keyPath = x.lhs, case .literal(.string(let long), _) = x.rhs,
            case .literal(.string(let short), _) = y.rhs
        else { return false }
        switch x.options.folding {
        case []: return long.unicodeScalars.starts(with: short.unicodeScalars)
        case .caseInsensitive:
            // Case folding can change lengths outside ASCII; inside it a prefix stays a prefix.
            let ascii = long.unicodeScalars.allSatisfy(\.isASCII) && short.unicodeScalars.allSatisfy(\.isASCII)
            return ascii && long.lowercased().unicodeScalars.starts(with: short.lowercased().unicodeScalars)
        default: return false
        }
    }

    /// The tree with every source offset zeroed, so equal terms compare equal wherever they stand.
    static func stripped(_ tree: PredicateSyntaxTree) -> PredicateSyntaxTree {
        switch tree {
        case .constant: return tree
        case .not(let t): return .not(stripped(t))
        case .and(let ts): return .and(ts.map(stripped))
        case .or(let ts): return .or(ts.map(stripped))
        case .comparison(var c):
            c.offset = 0
            c.lhs = stripped(c.lhs)
            c.rhs = stripped(c.rhs)
            return .comparison(c)
        }
    }

    static func stripped(_ e: ExpressionSyntax) -> ExpressionSyntax {
        switch e {
        case .literal(let l, _): return .literal(l, offset: 0)
        case .list(let items, _): return .list(items.map(stripped), offset: 0)
        case .keyPath(let k): return .keyPath(stripped(k))
        }
    }

    static func stripped(_ k: KeyPathSyntax) -> KeyPathSyntax {
        var k = k
        k.offset = 0
        if case .subquery(let collection, let variable, let predicate) = k.root {
            k.root = .subquery(collection: stripped(collection), variable: variable, predicate: stripped(predicate))
        }
        return k
    }
}
