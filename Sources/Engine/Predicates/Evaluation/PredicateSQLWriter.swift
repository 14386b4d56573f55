import Model

/// What both SQL dialects (`SQLGenerator` for SQLite, `PGSQLGenerator` for PostgreSQL) write
/// alike: constants, NOT, AND/OR as balanced trees, and EXISTS over a collection. Each dialect
/// supplies its boolean literals, its collections' FROM clause and its leaves (comparisons),
/// which must never be NULL, so NOT and ALL mean in SQL what they mean in memory.
protocol PredicateSQLWriter {
    /// What a leaf may fail with: `Never` for SQLite, `PGUnsupported` for PostgreSQL.
    associatedtype Failure: Error
    static var trueSQL: String { get }
    static var falseSQL: String { get }
    /// The alias of each scope's row (0: the evaluated object).
    var aliases: [String] { get set }
    /// The SQL written so far and the values it binds, in order.
    var text: String { get set }
    var bindings: [Value] { get set }
    /// The last `_fN` alias handed out.
    var counter: Int { get set }
    /// Writes `"Dest" AS e WHERE <e belongs to the owner>` and returns e.
    mutating func from(_ coll: BoundCollection, alias: String?) -> String
    mutating func leaf(
        _ l: BoundExpression, _ op: LeafOperator, _ options: ComparisonOptions, _ r: BoundExpression, textual: Bool
    ) throws(Failure)
}

extension PredicateSQLWriter {
    var fragment: SQLFragment { SQLFragment(text, bindings) }

    mutating func emit(_ s: String) { text += s }

    /// `(SELECT count(*) FROM <coll> [AND (<filter> over its row)])`, for `@count`.
    mutating func countSubquery(_ coll: BoundCollection, _ filter: BoundPredicate?) throws(Failure) {
        emit("(SELECT count(*) FROM ")
        let alias = from(coll, alias: nil)
        if let filter {
            emit(" AND (")
            aliases.append(alias)
            try predicate(filter)
            aliases.removeLast()
            emit(")")
        }
        emit(")")
    }

    /// A new alias for a subquery's row.
    mutating func fresh() -> String {
        counter += 1
        return "_f\(counter)"
    }

    mutating func predicate(_ p: BoundPredicate) throws(Failure) {
        switch p {
        case .constant(let b): emit(b ? Self.trueSQL : Self.falseSQL)
        case .not(let inner):
            emit("NOT (")
            try predicate(inner)
            emit(")")
        case .and(let ps): try balanced(ps[...], "AND", empty: Self.trueSQL)
        case .or(let ps): try balanced(ps[...], "OR", empty: Self.falseSQL)
        case .compare(let l, let op, let options, let r, let textual, _):
            try leaf(l, op, options, r, textual: textual)
        case .exists(let coll, let inner):
            emit("EXISTS (SELECT 1 FROM ")
            let alias = from(coll, alias: nil)
            emit(" AND (")
            aliases.append(alias)
            try predicate(inner)
            aliases.removeLast()
            emit("))")
        }
    }

    /// AND/OR lists as balanced trees, so thousands of terms stay within the parser's
    /// expression depth limit.
    private mutating func balanced(
        _ ps: ArraySlice<BoundPredicate>, _ word: String, empty: String
    ) throws(Failure) {
        switch ps.count {
        case 0: emit(empty)
        case 1: try predicate(ps[ps.startIndex])
        default:
            let mid = ps.startIndex + ps.count / 2
            emit("(")
            try balanced(ps[..<mid], word, empty: empty)
            emit(" \(word) ")
            try balanced(ps[mid...], word, empty: empty)
            emit(")")
        }
    }
}
