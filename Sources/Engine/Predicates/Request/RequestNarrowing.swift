import Model

/// Structural proof that a new request matches a subset of what an old one matched, so
/// setRequest can filter the rows it holds instead of querying (protocol.md §9). Sound, not
/// complete: a false "no" only costs a query. Recognized: the new predicate's conjuncts
/// include each old conjunct, or extend an old `BEGINSWITH` literal on the same key path
/// (no folding options, or `[c]` over ASCII); any predicate narrows a nil one. Variables
/// must be equal.
public enum RequestNarrowing {
    public static func narrows(_ new: FetchRequest, from old: FetchRequest) -> Bool {
        proof(new, from: old) != nil
    }

    /// When `new` narrows `old`: the part of `new` that the old matches still have to pass,
    /// its conjuncts that are not old ones (an old match passes every old conjunct), bound
    /// on `model`. Fewer terms to test, and often only attributes a controller's sort keys
    /// hold, so no object is read. Nil when there is no proof.
    public static func residual(_ new: FetchRequest, from old: FetchRequest, model: ObjectModel) -> (any ObjectFilter)?
    {
        guard let left = proof(new, from: old), let entity = model.entity(new.entity) else { return nil }
        let tree: PredicateSyntaxTree = left.count == 1 ? left[0] : left.isEmpty ? .constant(true) : .and(left)
        return try? RequestCompiler.bind(tree, new, entity, model: model)
    }

    /// The new conjuncts that are not old ones, when each old conjunct is implied by a new one.
    private static func proof(_ new: FetchRequest, from old: FetchRequest) -> [PredicateSyntaxTree]? {
        guard new.entity == old.entity, new.variables == old.variables, new.listVariables == old.listVariables
        else { return nil }
        guard let newText = new.predicate, let newTree = try? PredicateParser.parse(newText) else {
            return new.predicate == nil && old.predicate == nil ? [] : nil
        }
        let newTerms = conjuncts(newTree)
        let newStripped = newTerms.map(stripped)
        guard let oldText = old.predicate else { return newTerms }
        guard let oldTree = try? PredicateParser.parse(oldText) else { return nil }
        let oldStripped = conjuncts(oldTree).map(stripped)
        guard oldStripped.allSatisfy({ old in newStripped.contains { implies($0, old) } }) else { return nil }
        return newTerms.indices.filter { !oldStripped.contains(newStripped[$0]) }.map { newTerms[$0] }
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
