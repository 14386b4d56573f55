import Model

/// Every leaf operator once operands are values (IN and BETWEEN are rewritten into these).
public enum LeafOperator: Int32, Sendable, CaseIterable {
    case equal = 1
    case notEqual, less, lessOrEqual, greater, greaterOrEqual
    case beginsWith, endsWith, contains, like, matches

    var textKind: TextPattern.Kind? {
        switch self {
        case .beginsWith: return .beginsWith
        case .endsWith: return .endsWith
        case .contains: return .contains
        case .like: return .like
        case .matches: return .matches
        default: return nil
        }
    }

    /// The operator with its operands swapped (`3 < age` is `age > 3`); nil for string operators.
    var flipped: LeafOperator? {
        switch self {
        case .equal, .notEqual: return self
        case .less: return .greater
        case .lessOrEqual: return .greaterOrEqual
        case .greater: return .less
        case .greaterOrEqual: return .lessOrEqual
        default: return nil
        }
    }
}

/// One comparison of two values with NSPredicate's semantics, never SQL's three-valued logic:
/// `nil == nil` is true, `x != 5` is true for nil x, `<`/`>` with a nil side are false,
/// `<=`/`>=` are true when both sides are nil. String operators on a nil side are false.
///
/// This is the single definition: the in-memory evaluator calls it directly and the SQL
/// function `fetchd_compare` calls it for every comparison SQL cannot do natively.
public enum ValueComparison {
    public static func evaluate(_ op: LeafOperator, _ options: ComparisonOptions, _ a: Value, _ b: Value) -> Bool {
        if let kind = op.textKind {
            guard let subject = text(a), let pattern = text(b),
                let prepared = TextPattern(kind, options: options, pattern: pattern)
            else { return false }
            return prepared.matches(subject)
        }
        return order(op, options, a, b)
    }

    /// The six ordering/equality operators, with `[c]`/`[d]` folding applied to text.
    @inline(__always)
    static func order(_ op: LeafOperator, _ options: ComparisonOptions, _ a: Value, _ b: Value) -> Bool {
        let aNull = a.isNull
        let bNull = b.isNull
        if aNull || bNull {
            switch op {
            case .equal, .lessOrEqual, .greaterOrEqual: return aNull && bNull
            case .notEqual: return !(aNull && bNull)
            default: return false
            }
        }
        let c: Int?
        if !options.folding.isEmpty, let x = text(a), let y = text(b) {
            c = ByteOrder.compare(TextFolding.fold(x, options), TextFolding.fold(y, options))
        } else {
            // Different storage classes (a plain client's value against the model): as SQL.
            c = ScalarOrder.compare(a, b) ?? SortComparison.crossClass(a, b)
        }
        guard let c else { return op == .notEqual }
        switch op {
        case .equal: return c == 0
        case .notEqual: return c != 0
        case .less: return c < 0
        case .lessOrEqual: return c <= 0
        case .greater: return c > 0
        case .greaterOrEqual: return c >= 0
        default: return false
        }
    }

    static func text(_ v: Value) -> String? {
        switch v {
        case .string(let s), .uuid(let s): return s
        default: return nil
        }
    }
}

/// A leaf whose right-hand side is a constant: folding, LIKE parsing and regex compilation
/// happen once, at compile time. Gives the same answers as `ValueComparison.evaluate`.
/// A class, so the hot path passes one reference instead of copying patterns.
final class PreparedComparison: Sendable {
    let op: LeafOperator
    let options: ComparisonOptions
    let constant: Value
    private let pattern: TextPattern?
    private let foldedConstant: String?
    private let integer: Int64?

    init?(_ op: LeafOperator, _ options: ComparisonOptions, constant: Value) {
        self.op = op
        self.options = options.folding
        self.constant = constant
        if let kind = op.textKind {
            guard let p = ValueComparison.text(constant) else {
                pattern = nil
                foldedConstant = nil
                integer = nil
                return
            }
            guard let prepared = TextPattern(kind, options: options, pattern: p) else { return nil }
            pattern = prepared
            foldedConstant = nil
            integer = nil
        } else {
            pattern = nil
            foldedConstant =
                self.options.isEmpty ? nil : ValueComparison.text(constant).map { TextFolding.fold($0, options) }
            if case .integer(let i) = constant { integer = i } else { integer = nil }
        }
    }

    @inline(__always)
    func evaluate(_ a: Value) -> Bool {
        // Integer against an integer constant: the most common leaf, without the general path.
        if let c = integer, case .integer(let x) = a {
            switch op {
            case .equal: return x == c
            case .notEqual: return x != c
            case .less: return x < c
            case .lessOrEqual: return x <= c
            case .greater: return x > c
            case .greaterOrEqual: return x >= c
            default: break
            }
        }
        if op.textKind != nil {
            guard let pattern, let s = ValueComparison.text(a) else { return false }
            return pattern.matches(s)
        }
        if let foldedConstant, let s = ValueComparison.text(a) {
            let c = ByteOrder.compare(TextFolding.fold(s, options), foldedConstant)
            switch op {
            case .equal: return c == 0
            case .notEqual: return c != 0
            case .less: return c < 0
            case .lessOrEqual: return c <= 0
            case .greater: return c > 0
            default: return c >= 0
            }
        }
        return ValueComparison.order(op, options, a, constant)
    }
}
