import Model
import Predicates
import SQLite

extension SQLiteStore {
    /// `SELECT group columns, functions FROM entity WHERE filter GROUP BY group columns` over
    /// the saved rows: one row per group (one row without groups), keyed by group key path and
    /// function name. Only direct attributes; the contexts evaluate everything else.
    public func aggregate(
        entity: String, filter: (any ObjectFilter)?, groupBy: [(String, AttributeType?)],
        functions: [(name: String, function: AggregateFunction, keyPath: String, type: AttributeType?)]
    ) throws(EngineError) -> [Snapshot] {
        let column = { (name: String) in "t.\(SchemaNaming.quoted(name))" }
        var selected = groupBy.map { column($0.0) }
        for f in functions {
            let sqlFunction = f.function == .average ? "avg" : f.function.rawValue
            // total() would answer 0.0 for no values; sum() answers NULL, like the memory path.
            selected.append("\(sqlFunction)(\(column(f.keyPath)))")
        }
        let (whereSQL, bindings) = Self.whereClause(filter)
        var sql = "SELECT \(selected.joined(separator: ", ")) FROM \(SchemaNaming.quoted(entity)) AS t\(whereSQL)"
        if !groupBy.isEmpty { sql += " GROUP BY \(groupBy.map { column($0.0) }.joined(separator: ", "))" }
        do {
            let s = try connection.prepare(sql)
            defer { s.reset() }
            try s.bind(bindings.map(ValueEncoding.sql))
            var rows: [Snapshot] = []
            while try s.step() {
                var row: Snapshot = [:]
                var c: Int32 = 0
                for (key, type) in groupBy {
                    row[key] = Self.decoded(s.value(c), type)
                    c += 1
                }
                for f in functions {
                    let raw = s.value(c)
                    switch f.function {
                    case .count: row[f.name] = ValueEncoding.untyped(raw)
                    case .average: row[f.name] = Self.asDouble(ValueEncoding.untyped(raw))
                    case .sum:
                        row[f.name] =
                            f.type == .double ? Self.asDouble(ValueEncoding.untyped(raw)) : ValueEncoding.untyped(raw)
                    case .min, .max: row[f.name] = Self.decoded(raw, f.type)
                    }
                    c += 1
                }
                rows.append(row)
            }
            return rows
        } catch { throw Self.storeError(error, "aggregate query failed") }
    }

    private static func decoded(_ raw: SQLValue, _ type: AttributeType?) -> Value {
        type.map { ValueEncoding.value(raw, as: $0) } ?? ValueEncoding.untyped(raw)
    }

    private static func asDouble(_ v: Value) -> Value {
        if case .integer(let i) = v { return .double(Double(i)) }
        return v
    }
}
