import Model

/// Compiles a bound predicate to a PostgreSQL boolean expression over `FROM "Entity" AS
/// alias`, meaning exactly what `MemoryProgram` computes. NOT, AND/OR and EXISTS are
/// `PredicateSQLWriter`'s, key paths and collections `SQLGenerator`'s (the SQL is the same in
/// both dialects); comparisons, constants and aggregates differ:
///
/// - placeholders are `$n::type` (types as `PGValueEncoding` lays out columns);
/// - every predicate is TRUE or FALSE, never NULL (`IS [NOT] DISTINCT FROM`, guarded orders,
///   COALESCE around string operators), so NOT and ALL mean what they mean in memory;
/// - text orders with `COLLATE "C"` (scalar order); `[c]`/`[d]` fold with `fetchd_fold`;
/// - integers against doubles compare as exact `numeric` (`fetchd_exact`), as `ScalarOrder` does;
/// - `@sum`/`@avg` add doubles in ascending order (`fetchd_fsum`), as `Aggregates` does.
///
/// Constructs without an exact translation throw `PGUnsupported` (see `PGPatterns`).
struct PGSQLGenerator: PredicateSQLWriter {
    /// The SQL type an expression has once emitted. Booleans are emitted as int8 (0/1), so
    /// they compare with numbers as in memory; dates are float8 seconds.
    enum Kind: Equatable { case text, int8, float8, numeric, bytea }

    var text = ""
    var bindings: [Value] = []
    var aliases: [String]
    var counter = 0
    private let firstParameter: Int

    /// `firstParameter`: the number of this fragment's first `$n`.
    init(alias: String, firstParameter: Int = 1) {
        aliases = [alias]
        self.firstParameter = firstParameter
    }

    // MARK: Predicates (shared by `PredicateSQLWriter`)

    static let trueSQL = "TRUE"
    static let falseSQL = "FALSE"

    mutating func leaf(
        _ l: BoundExpression, _ op: LeafOperator, _ options: ComparisonOptions, _ r: BoundExpression, textual: Bool
    ) throws(PGUnsupported) {
        if op.textKind != nil {
            try textOperator(l, op, options, r)
        } else {
            try compare(l, op, textual ? options.folding : [], r)
        }
    }

    /// `==`, `!=`, `<`, `<=`, `>`, `>=` with NSPredicate's nil rules (`ValueComparison.order`).
    private mutating func compare(
        _ l: BoundExpression, _ op: LeafOperator, _ options: ComparisonOptions, _ r: BoundExpression
    ) throws(PGUnsupported) {
        var (l, op, r) = (l, op, r)
        if l.constantValue?.isNull == true, r.constantValue?.isNull != true, let flipped = op.flipped {
            (l, op, r) = (r, flipped, l)
        }
        if r.constantValue?.isNull == true {
            switch op {
            // `x <= nil` holds only for nil x; `x < nil` never; `x != nil` for non-nil x.
            case .equal, .lessOrEqual, .greaterOrEqual:
                emit("(")
                try value(l, options: options, as: nil)
                emit(" IS NULL)")
            case .notEqual:
                emit("(")
                try value(l, options: options, as: nil)
                emit(" IS NOT NULL)")
            default: emit("FALSE")
            }
            return
        }
        let folded = !options.isEmpty
        let kind = folded ? .text : Self.common(Self.kind(l), Self.kind(r))
        let collate = kind == .text ? " COLLATE \"C\"" : ""
        func side(_ g: inout PGSQLGenerator, _ e: BoundExpression) throws(PGUnsupported) {
            try g.value(e, options: options, as: kind)
        }
        switch op {
        case .equal, .notEqual:
            emit("(")
            try side(&self, l)
            emit(op == .equal ? " IS NOT DISTINCT FROM " : " IS DISTINCT FROM ")
            try side(&self, r)
            emit(")")
            return
        default: break
        }
        let sqlOp: String
        switch op {
        case .less: sqlOp = "<"
        case .lessOrEqual: sqlOp = "<="
        case .greater: sqlOp = ">"
        default: sqlOp = ">="
        }
        emit("(")
        if op == .lessOrEqual || op == .greaterOrEqual {
            emit("(")
            try side(&self, l)
            emit(" IS NULL AND ")
            try side(&self, r)
            emit(" IS NULL) OR ")
        }
        emit("(")
        try side(&self, l)
        emit(" IS NOT NULL AND ")
        try side(&self, r)
        emit(" IS NOT NULL AND ")
        try side(&self, l)
        emit("\(collate) \(sqlOp) ")
        try side(&self, r)
        emit("\(collate)))")
    }

    /// BEGINSWITH, ENDSWITH, CONTAINS, LIKE, MATCHES as `TextPattern`: folded subject and
    /// pattern, an empty pattern matches nothing, nil on either side is false.
    private mutating func textOperator(
        _ l: BoundExpression, _ op: LeafOperator, _ options: ComparisonOptions, _ r: BoundExpression
    ) throws(PGUnsupported) {
        let options = options.folding
        if l.constantValue?.isNull == true || r.constantValue?.isNull == true {
            emit("FALSE")
            return
        }
        switch op {
        case .like where r.constantValue == nil:
            // A stored pattern: folded and translated per row.
            emit("COALESCE((")
            try value(l, options: options, as: .text)
            emit(") COLLATE \"C\" LIKE fetchd_like_pattern(")
            try value(r, options: options, as: .text)
            emit("), FALSE)")
        case .like, .matches:
            guard case .constant(let v) = r, let pattern = ValueComparison.text(v) else {
                throw PGUnsupported("MATCHES with a pattern that is not a constant")
            }
            let translated: String
            var subjectOptions = options
            if op == .like {
                translated = PGPatterns.like(TextFolding.fold(pattern, options))
            } else {
                let d = options.contains(.diacriticInsensitive)
                // Case is the regex's job, as in `TextPattern`; diacritics leave both sides.
                translated = try PGPatterns.regex(
                    TextFolding.fold(pattern, caseInsensitive: false, diacriticInsensitive: d),
                    caseInsensitive: options.contains(.caseInsensitive))
                subjectOptions = d ? .diacriticInsensitive : []
            }
            emit("COALESCE((")
            try value(l, options: subjectOptions, as: .text)
            emit(") COLLATE \"C\" \(op == .like ? "LIKE" : "~") ")
            try bind(.string(translated))
            emit(", FALSE)")
        default:
            if case .constant(let v) = r, let p = ValueComparison.text(v), TextFolding.fold(p, options).isEmpty {
                emit("FALSE")
                return
            }
            emit("COALESCE(")
            if r.constantValue == nil {
                emit("length(")
                try value(r, options: options, as: .text)
                emit(") > 0 AND ")
            }
            switch op {
            case .beginsWith:
                emit("starts_with(")
                try value(l, options: options, as: .text)
                emit(", ")
                try value(r, options: options, as: .text)
                emit(")")
            case .endsWith:
                emit("right(")
                try value(l, options: options, as: .text)
                emit(", length(")
                try value(r, options: options, as: .text)
                emit(")) = ")
                try value(r, options: options, as: .text)
            default:
                emit("strpos(")
                try value(l, options: options, as: .text)
                emit(", ")
                try value(r, options: options, as: .text)
                emit(") > 0")
            }
            emit(", FALSE)")
        }
    }

    // MARK: Values

    /// An expression as SQL of `target` kind (nil: its own), text folded by `options`.
    private mutating func value(
        _ e: BoundExpression, options: ComparisonOptions, as target: Kind?
    ) throws(PGUnsupported) {
        let own = Self.kind(e)
        let c = options.contains(.caseInsensitive)
        let d = options.contains(.diacriticInsensitive)
        if case .constant(let v) = e {
            if v.isNull {
                emit("NULL")
                return
            }
            if own == .text, c || d, let s = ValueComparison.text(v) {
                try bind(.string(TextFolding.fold(s, caseInsensitive: c, diacriticInsensitive: d)))
                return
            }
        }
        if own == .text && (c || d) {
            emit("fetchd_fold(")
            try expression(e)
            emit(", \(c ? "TRUE" : "FALSE"), \(d ? "TRUE" : "FALSE"))")
            return
        }
        guard let target, target == .numeric, own != .numeric else {
            try expression(e)
            return
        }
        // Exact numbers: int8 widens to numeric as is, float8 through its exact value.
        emit(own == .float8 ? "fetchd_exact(" : "(")
        try expression(e)
        emit(own == .float8 ? ")" : ")::numeric")
    }

    /// Which kind both sides of a comparison meet in: their own when they agree (or one side
    /// is a nil constant), exact `numeric` when numbers of different kinds meet.
    static func common(_ a: Kind?, _ b: Kind?) -> Kind? {
        guard let a else { return b }
        guard let b, a != b else { return a }
        return .numeric
    }

    static func kind(_ e: BoundExpression) -> Kind? {
        switch e {
        case .constant(let v):
            switch v {
            case .null, .objects: return nil
            case .string, .uuid: return .text
            case .integer, .bool, .object: return .int8
            case .double, .date: return .float8
            case .binary: return .bytea
            }
        case .key(let k): return kind(k.terminal)
        case .count: return .int8
        case .aggregate(let aggregate, _, let k):
            switch aggregate {
            case .avg: return .float8
            case .sum: return kind(k.terminal) == .int8 ? .numeric : .float8
            case .min, .max: return kind(k.terminal)
            }
        }
    }

    static func kind(_ t: KeyTerminal) -> Kind {
        switch t {
        case .object: return .int8
        case .attribute(_, let type):
            switch type {
            case .string, .uuid: return .text
            case .integer, .boolean: return .int8
            case .double, .date: return .float8
            case .binary: return .bytea
            }
        }
    }

    private mutating func bind(_ v: Value) throws(PGUnsupported) {
        guard let type = PGValueEncoding.parameterType(v) else {
            emit("NULL")
            return
        }
        if let s = ValueComparison.text(v), s.unicodeScalars.contains("\0") {
            throw PGUnsupported("a string with U+0000 (PostgreSQL text cannot hold it)")
        }
        bindings.append(v)
        emit("$\(firstParameter + bindings.count - 1)::\(type)")
    }

    mutating func expression(_ e: BoundExpression) throws(PGUnsupported) {
        switch e {
        case .constant(let v): try bind(v)
        case .key(let k):
            let sql = keySQL(k)
            if case .attribute(_, .boolean) = k.terminal { emit("(\(sql))::int4::int8") } else { emit(sql) }
        case .count(let coll, let filter): try countSubquery(coll, filter)
        case .aggregate(let kind, let coll, let k): aggregate(kind, coll, k)
        }
    }

    /// `@sum`, `@avg`, `@min`, `@max` as `Aggregates` and `AggregateNode` compute them.
    private mutating func aggregate(_ aggregate: AggregateKind, _ coll: BoundCollection, _ k: BoundKeyPath) {
        let alias = fresh()
        aliases.append(alias)
        var x = keySQL(k)
        aliases.removeLast()
        let integral = Self.kind(k.terminal) == .int8
        if case .attribute(_, .boolean) = k.terminal { x = "(\(x))::int4::int8" }
        let sums = fresh()
        // Integer sums are exact in numeric; past 64 bits memory adds them as ascending doubles.
        let inRange = "\(sums).s BETWEEN -9223372036854775808 AND 9223372036854775807"
        let fsum = "fetchd_fsum((\(x))::float8 ORDER BY (\(x))::float8) AS f"
        switch aggregate {
        case .min, .max:
            let collate = Self.kind(k.terminal) == .text ? " COLLATE \"C\"" : ""
            emit("(SELECT \(aggregate == .min ? "min" : "max")(\(x)\(collate)) FROM ")
            from(coll, alias: alias)
            emit(")")
            return
        case .sum where integral:
            emit(
                "(SELECT CASE WHEN \(sums).s IS NULL THEN 0::numeric WHEN \(inRange) THEN \(sums).s ELSE fetchd_exact(\(sums).f) END FROM (SELECT sum((\(x))::numeric) AS s, \(fsum) FROM "
            )
        case .sum:
            emit("(SELECT \(sums).f FROM (SELECT \(fsum) FROM ")
        case .avg where integral:
            emit(
                "(SELECT CASE WHEN \(sums).n = 0 THEN NULL WHEN \(inRange) THEN \(sums).s::float8 / \(sums).n::float8 ELSE \(sums).f / \(sums).n::float8 END FROM (SELECT count(\(x)) AS n, sum((\(x))::numeric) AS s, \(fsum) FROM "
            )
        case .avg:
            emit(
                "(SELECT CASE WHEN \(sums).n = 0 THEN NULL ELSE \(sums).f / \(sums).n::float8 END FROM (SELECT count(\(x)) AS n, \(fsum) FROM "
            )
        }
        from(coll, alias: alias)
        emit(") AS \(sums))")
    }

    // MARK: Key paths and collections (SQLGenerator's, shared)

    private mutating func keySQL(_ k: BoundKeyPath) -> String {
        var g = SQLGenerator(aliases: aliases, counter: counter)
        g.key(k)
        counter = g.counter
        return g.text
    }

    @discardableResult
    mutating func from(_ coll: BoundCollection, alias: String? = nil) -> String {
        var g = SQLGenerator(aliases: aliases, counter: counter)
        let e = g.from(coll, alias: alias)
        counter = g.counter
        emit(g.text)
        return e
    }
}
