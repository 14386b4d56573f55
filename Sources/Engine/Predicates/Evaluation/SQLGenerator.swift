import Model

/// Compiles a bound predicate (or a key path) to a SQLite expression over `FROM "Entity" AS
/// alias`. Every value is a bound parameter; every identifier comes from the model and is
/// quoted. Every predicate it emits is 0 or 1, never NULL, so NOT and ALL mean in SQL what
/// they mean in memory. NOT, AND/OR and EXISTS are `PredicateSQLWriter`'s.
struct SQLGenerator: PredicateSQLWriter {
    var text = ""
    var bindings: [Value] = []
    var aliases: [String]
    /// Read back by the PostgreSQL generator, which writes key paths and collections
    /// through this one.
    var counter = 0

    init(alias: String) { aliases = [alias] }

    /// Continues another generator's scopes and alias numbering (`PGSQLGenerator`).
    init(aliases: [String], counter: Int) {
        self.aliases = aliases
        self.counter = counter
    }

    // MARK: Predicates (shared by `PredicateSQLWriter`)

    static let trueSQL = "1"
    static let falseSQL = "0"

    mutating func leaf(
        _ l: BoundExpression, _ op: LeafOperator, _ options: ComparisonOptions, _ r: BoundExpression, textual: Bool
    ) {
        compare(l, op, options, r, textual: textual)
    }

    private mutating func compare(
        _ l: BoundExpression, _ op: LeafOperator, _ options: ComparisonOptions,
        _ r: BoundExpression, textual: Bool
    ) {
        if op.textKind != nil || !options.isEmpty {
            // String operators and folded comparisons: the shared Swift implementation.
            emit("fetchd_compare(\(op.rawValue), \(options.rawValue), ")
            expression(l)
            emit(", ")
            expression(r)
            emit(")")
            return
        }
        let collate = textual ? " COLLATE BINARY" : ""
        let sqlOp: String
        switch op {
        case .equal:
            emit("(")
            expression(l)
            emit(" IS ")
            expression(r)
            emit("\(collate))")
            return
        case .notEqual:
            emit("(")
            expression(l)
            emit(" IS NOT ")
            expression(r)
            emit("\(collate))")
            return
        case .less: sqlOp = "<"
        case .lessOrEqual: sqlOp = "<="
        case .greater: sqlOp = ">"
        default: sqlOp = ">="
        }
        let inclusive = op == .lessOrEqual || op == .greaterOrEqual
        if let c = r.constantValue {
            if c.isNull {
                // `x <= nil` holds only for nil x; `x < nil` never.
                if inclusive {
                    emit("(")
                    expression(l)
                    emit(" IS NULL)")
                } else {
                    emit("0")
                }
                return
            }
            emit("(")
            expression(l)
            emit(" IS NOT NULL AND ")
            expression(l)
            emit(" \(sqlOp) ")
            expression(r)
            emit("\(collate))")
            return
        }
        emit("(")
        if inclusive {
            emit("(")
            expression(l)
            emit(" IS NULL AND ")
            expression(r)
            emit(" IS NULL) OR ")
        }
        emit("(")
        expression(l)
        emit(" IS NOT NULL AND ")
        expression(r)
        emit(" IS NOT NULL AND ")
        expression(l)
        emit(" \(sqlOp) ")
        expression(r)
        emit("\(collate)))")
    }

    // MARK: Expressions

    mutating func expression(_ e: BoundExpression) {
        switch e {
        case .constant(let v):
            emit("?")
            bindings.append(v)
        case .key(let k): key(k)
        case .count(let coll, let filter): countSubquery(coll, filter)
        case .aggregate(let kind, let coll, let k):
            // Column list first, FROM after: generate the element expression in a side buffer.
            var inner = SQLGenerator(alias: "")
            inner.aliases = aliases
            inner.counter = counter + 1
            let alias = "_f\(counter + 1)"
            inner.aliases.append(alias)
            inner.key(k)
            counter = inner.counter
            let function: String
            switch kind {
            case .sum: function = "fetchd_sum"
            case .avg: function = "fetchd_avg"
            case .min: function = "MIN"
            case .max: function = "MAX"
            }
            emit("(SELECT \(function)(\(inner.text)) FROM ")
            bindings += inner.bindings
            _ = from(coll, alias: alias)
            emit(")")
        }
    }

    /// The value of a key path: a column of the scope's row, or correlated subqueries
    /// through the to-one foreign keys (NULL when any step is NULL, as in memory).
    mutating func key(_ k: BoundKeyPath) {
        let base = aliases[k.scope]
        guard let first = k.hops.first else {
            switch k.terminal {
            case .attribute(let name, _): emit("\(base).\(SchemaNaming.quoted(name))")
            case .object: emit("\(base).\(SchemaNaming.quoted(SchemaNaming.primaryKey))")
            }
            return
        }
        var id = "\(base).\(SchemaNaming.quoted(first.relationship))"
        for hop in k.hops.dropFirst() {
            let a = fresh()
            id =
                "(SELECT \(a).\(SchemaNaming.quoted(hop.relationship)) FROM \(SchemaNaming.quoted(hop.entity)) AS \(a) WHERE \(a).\(SchemaNaming.quoted(SchemaNaming.primaryKey)) = \(id))"
        }
        switch k.terminal {
        case .object: emit(id)
        case .attribute(let name, _):
            let a = fresh()
            let entity = k.hops.last!.destination
            emit(
                "(SELECT \(a).\(SchemaNaming.quoted(name)) FROM \(SchemaNaming.quoted(entity)) AS \(a) WHERE \(a).\(SchemaNaming.quoted(SchemaNaming.primaryKey)) = \(id))"
            )
        }
    }

    /// `"Dest" AS e WHERE <e belongs to the owner>` (or through the join table); returns e.
    @discardableResult
    mutating func from(_ coll: BoundCollection, alias given: String? = nil) -> String {
        let e = given ?? fresh()
        let pk = SchemaNaming.quoted(SchemaNaming.primaryKey)
        let dest = SchemaNaming.quoted(coll.hop.destination)
        switch coll.hop.storage {
        case .inverseColumn(let column):
            emit("\(dest) AS \(e) WHERE \(e).\(SchemaNaming.quoted(column)) = ")
        case .joinTable(let table, let selfColumn, let otherColumn):
            let j = fresh()
            emit(
                "\(SchemaNaming.quoted(table)) AS \(j) JOIN \(dest) AS \(e) ON \(e).\(pk) = \(j).\(SchemaNaming.quoted(otherColumn)) WHERE \(j).\(SchemaNaming.quoted(selfColumn)) = "
            )
        }
        key(coll.owner)
        return e
    }
}
