import Model
import SQLite

/// Registers every function and collation the generated SQL uses. Each one calls the same
/// Swift code the in-memory evaluator calls; that is what makes the two paths agree.
///
/// - `fetchd_compare(op, options, a, b)`: string operators and `[c]`/`[d]` comparisons
///   (`ValueComparison`), 0 or 1, never NULL.
/// - `fetchd_sum(x)`, `fetchd_avg(x)`: `@sum`, `@avg` (`Aggregates`).
/// - collations `fetchd_nocase`, `fetchd_localized`: `caseInsensitiveCompare`,
///   `localizedStandardCompare` (`SortComparison`). `compare` is SQLite's BINARY.
public enum SQLFunctions {
    public static let caseInsensitiveCollation = "fetchd_nocase"
    public static let localizedCollation = "fetchd_localized"

    public static func register(on connection: Connection) throws(SQLiteError) {
        let patterns = PatternCache()
        try connection.createFunction("fetchd_compare", arity: 4) { args in
            guard case .integer(let code) = args[0], let op = LeafOperator(rawValue: Int32(truncatingIfNeeded: code)),
                case .integer(let raw) = args[1]
            else { return .integer(0) }
            let options = ComparisonOptions(rawValue: Int(raw))
            let a = ValueEncoding.untyped(args[2])
            let b = ValueEncoding.untyped(args[3])
            if let kind = op.textKind {
                guard case .string(let subject) = a, case .string(let pattern) = b,
                    let prepared = patterns.pattern(kind, options, pattern)
                else { return .integer(0) }
                return .integer(prepared.matches(subject) ? 1 : 0)
            }
            return .integer(ValueComparison.evaluate(op, options, a, b) ? 1 : 0)
        }
        try connection.createAggregate("fetchd_sum", arity: 1) { Collector(average: false) }
        try connection.createAggregate("fetchd_avg", arity: 1) { Collector(average: true) }
        try connection.createCollation(caseInsensitiveCollation) { a, b in
            Int32(
                SortComparison.caseInsensitive(String(decoding: a, as: UTF8.self), String(decoding: b, as: UTF8.self)))
        }
        try connection.createCollation(localizedCollation) { a, b in
            Int32(
                SortComparison.localizedStandard(String(decoding: a, as: UTF8.self), String(decoding: b, as: UTF8.self))
            )
        }
    }
}

/// Prepared text patterns by (operator, options, pattern), so a LIKE or MATCHES pattern is
/// parsed once per statement, not once per row.
private final class PatternCache {
    /// The pattern's bytes, not the String: Swift's String equality treats `é` and
    /// `e` + U+0301 as equal, and those two patterns must not share an entry.
    private struct Key: Hashable {
        var kind: Int32
        var options: Int
        var pattern: [UInt8]
    }
    private var entries: [Key: TextPattern?] = [:]
    /// A statement usually tests one pattern on every row: remember the last one.
    private var last: (key: Key, pattern: TextPattern?)?

    func pattern(_ kind: TextPattern.Kind, _ options: ComparisonOptions, _ pattern: String) -> TextPattern? {
        let code = kindCode(kind)
        if let last, last.key.kind == code, last.key.options == options.rawValue,
            last.key.pattern.elementsEqual(pattern.utf8)
        {
            return last.pattern
        }
        let key = Key(kind: code, options: options.rawValue, pattern: Array(pattern.utf8))
        if let hit = entries[key] {
            last = (key, hit)
            return hit
        }
        if entries.count > 1024 { entries.removeAll(keepingCapacity: true) }
        let made = TextPattern(kind, options: options, pattern: pattern)
        entries[key] = made
        last = (key, made)
        return made
    }

    private func kindCode(_ kind: TextPattern.Kind) -> Int32 {
        switch kind {
        case .beginsWith: return 0
        case .endsWith: return 1
        case .contains: return 2
        case .like: return 3
        case .matches: return 4
        }
    }
}

private final class Collector: SQLAggregateState {
    let average: Bool
    var values: [Value] = []
    init(average: Bool) { self.average = average }

    func step(_ arguments: [SQLValue]) { values.append(ValueEncoding.untyped(arguments[0])) }

    func result() -> SQLValue {
        ValueEncoding.sql(average ? Aggregates.average(values) : Aggregates.sum(values))
    }
}
