import Model
import SQLite

/// The one mapping between engine values and SQLite storage, used by the store for columns
/// and by the predicate compiler for bound parameters, so both store and compare alike.
///
/// string TEXT, integer INTEGER, double REAL, boolean INTEGER 0/1, date REAL (seconds since
/// 1970, UTC), binary BLOB, uuid TEXT (lowercase canonical), to-one INTEGER (the target's N).
public enum ValueEncoding {
    public static func sql(_ value: Value) -> SQLValue {
        switch value {
        case .null: return .null
        case .integer(let v): return .integer(v)
        case .double(let v): return .real(v)
        case .bool(let v): return .integer(v ? 1 : 0)
        case .string(let s): return .text(s)
        case .date(let t): return .real(t)
        case .binary(let b): return .blob(b)
        case .uuid(let u): return .text(u)
        case .object(let id): return .integer(id.number)
        case .objects: return .null // to-many values have no column
        }
    }

    /// Decodes a column of an attribute of type `type`.
    public static func value(_ sql: SQLValue, as type: AttributeType) -> Value {
        switch (sql, type) {
        case (.null, _): return .null
        case (.integer(let v), .integer): return .integer(v)
        // Column affinity made every integral real an integer: this one is not.
        case (.real(let v), .integer): return .double(v)
        case (.integer(let v), .double): return .double(Double(v))
        case (.real(let v), .double): return .double(v)
        case (.integer(let v), .boolean): return .bool(v != 0)
        case (.integer(let v), .date): return .date(Double(v))
        case (.real(let v), .date): return .date(v)
        case (.text(let s), .string): return .string(s)
        case (.text(let s), .uuid): return .uuid(s)
        case (.blob(let b), .binary): return .binary(b)
        // A value a plain client stored against the type: shown as stored, as SQL sees it
        // (protocol.md §5, "Bad data from plain clients").
        default: return untyped(sql)
        }
    }

    /// Decodes a column whose attribute type the caller does not know (sort key columns,
    /// decoded further by the ordering that selected them).
    @inlinable
    public static func untyped(_ sql: SQLValue) -> Value {
        switch sql {
        case .null: return .null
        case .integer(let v): return .integer(v)
        case .real(let v): return .double(v)
        case .text(let s): return .string(s)
        case .blob(let b): return .binary(b)
        }
    }

    /// Decodes a to-one column pointing at `destination`.
    public static func reference(_ sql: SQLValue, to destination: String) -> Value {
        if case .integer(let n) = sql { return .object(ObjectID(entity: destination, number: n)) }
        return .null
    }
}
