import Model

/// The order of two non-null values of the same kind, as SQLite orders their stored forms:
/// numbers (integer, double, boolean as 0/1) numerically and exactly across integer/double,
/// dates by time, text (string, uuid) by bytes, binary by bytes, objects by id number.
/// nil when either is null or the kinds cannot be compared.
public enum ScalarOrder {
    @inline(__always)
    public static func compare(_ a: Value, _ b: Value) -> Int? {
        switch (a, b) {
        case let (.integer(x), .integer(y)): return x == y ? 0 : (x < y ? -1 : 1)
        case let (.double(x), .double(y)), let (.date(x), .date(y)): return x == y ? 0 : (x < y ? -1 : 1)
        case let (.string(x), .string(y)), let (.uuid(x), .uuid(y)), let (.string(x), .uuid(y)), let (.uuid(x), .string(y)):
            return ByteOrder.compare(x, y)
        case let (.integer(x), .double(y)): return compare(x, y)
        case let (.double(x), .integer(y)): return -compare(y, x)
        case let (.bool(x), _): return compare(.integer(x ? 1 : 0), b)
        case let (_, .bool(y)): return compare(a, .integer(y ? 1 : 0))
        case let (.binary(x), .binary(y)): return ByteOrder.compare(x, y)
        case let (.object(x), .object(y)): return x.number == y.number ? 0 : (x.number < y.number ? -1 : 1)
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
