import Model

/// The order of two non-null values of the same kind, as SQLite orders their stored forms:
/// numbers (integer, double, boolean as 0/1) numerically and exactly across integer/double,
/// dates by time, text (string, uuid) by bytes, binary by bytes, objects by id number.
/// nil when either is null or the kinds cannot be compared.
public enum ScalarOrder {
    @inline(__always)
    public static func compare(_ a: Value, _ b: Value) -> Int? {
        switch (a, b) {
        case (.integer(let x), .integer(let y)): return x == y ? 0 : (x < y ? -1 : 1)
        case (.double(let x), .double(let y)), (.date(let x), .date(let y)): return x == y ? 0 : (x < y ? -1 : 1)
        case (.string(let x), .string(let y)), (.uuid(let x), .uuid(let y)), (.string(let x), .uuid(let y)),
            (.uuid(let x), .string(let y)):
            return ByteOrder.compare(x, y)
        case (.integer(let x), .double(let y)): return compare(x, y)
        case (.double(let x), .integer(let y)): return -compare(y, x)
        case (.bool(let x), _): return compare(.integer(x ? 1 : 0), b)
        case (_, .bool(let y)): return compare(a, .integer(y ? 1 : 0))
        case (.binary(let x), .binary(let y)): return ByteOrder.compare(x, y)
        case (.object(let x), .object(let y)): return x.number == y.number ? 0 : (x.number < y.number ? -1 : 1)
        default: return nil
        }
    }

    /// Exact comparison of an integer with a double (no rounding of either), as SQLite does.
    public static func compare(_ i: Int64, _ d: Double) -> Int {
        if d.isNaN { return 1 }
        if d >= 9_223_372_036_854_775_808.0 { return -1 }
        if d < -9_223_372_036_854_775_808.0 { return 1 }
        let t = d.rounded(.towardZero)
        let ti = Int64(t)
        if i != ti { return i < ti ? -1 : 1 }
        let fraction = d - t
        return fraction > 0 ? -1 : (fraction < 0 ? 1 : 0)
    }
}
