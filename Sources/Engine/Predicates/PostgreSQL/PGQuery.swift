import Model

/// A compiled request's WHERE, ORDER BY and key columns as PostgreSQL SQL, the counterpart of
/// `ObjectFilter.sql` and `ObjectOrdering.orderBy`/`keyColumns` for SQLite. Needs the
/// functions of `PGFunctions` in the search path.
public enum PGQuery {
    /// The filter as a boolean expression; `firstParameter` numbers its first `$n`. Throws
    /// `PGUnsupported` for what PostgreSQL cannot evaluate exactly as memory does: the caller
    /// then filters in memory.
    public static func filter(
        _ filter: any ObjectFilter, alias: String, firstParameter: Int = 1
    ) throws(PGUnsupported) -> SQLFragment {
        guard let compiled = filter as? CompiledFilter else { throw PGUnsupported("a filter not compiled by fetchd") }
        var g = PGSQLGenerator(alias: alias, firstParameter: firstParameter)
        try g.predicate(compiled.tree)
        return g.fragment
    }

    /// ORDER BY terms sorting exactly as `ordering.compare` (nil first ascending, last
    /// descending; ties left to the caller's id term). No parameters.
    public static func orderBy(_ ordering: any ObjectOrdering, alias: String) throws(PGUnsupported) -> SQLFragment {
        guard let compiled = ordering as? CompiledOrdering else {
            throw PGUnsupported("an ordering not compiled by fetchd")
        }
        let terms = compiled.components.map { c in
            var sql = keySQL(c.key, alias: alias)
            if c.isText {
                switch c.comparator {
                case .compare: break
                case .caseInsensitiveCompare: sql = "fetchd_fold(\(sql), TRUE, FALSE)"
                case .localizedStandardCompare: sql = "fetchd_localized_key(\(sql))"
                }
                sql += " COLLATE \"C\""
            }
            return sql + (c.ascending ? " ASC NULLS FIRST" : " DESC NULLS LAST")
        }
        return SQLFragment(terms.joined(separator: ", "))
    }

    /// The raw key values, one column per component, for `keyValues(fromColumns:)`.
    public static func keyColumns(_ ordering: any ObjectOrdering, alias: String) throws(PGUnsupported) -> [SQLFragment]
    {
        guard let compiled = ordering as? CompiledOrdering else {
            throw PGUnsupported("an ordering not compiled by fetchd")
        }
        return compiled.components.map { SQLFragment(keySQL($0.key, alias: alias)) }
    }

    /// What each key column holds, to decode its text with `PGValueEncoding.value`.
    public static func keyTypes(_ ordering: any ObjectOrdering) -> [PGValueEncoding.KeyTerminalType] {
        guard let compiled = ordering as? CompiledOrdering else { return [] }
        return compiled.components.map { c in
            switch c.key.terminal {
            case .attribute(_, let type): return .attribute(type)
            case .object(let entity): return .object(entity)
            }
        }
    }

    /// A sort key from the text of the key columns.
    public static func key(_ ordering: any ObjectOrdering, fromColumns columns: [String?]) -> SortKey {
        zip(keyTypes(ordering), columns).map { PGValueEncoding.value($1, as: $0) }
    }

    private static func keySQL(_ k: BoundKeyPath, alias: String) -> String {
        var g = SQLGenerator(alias: alias)
        g.key(k)
        return g.text
    }
}
