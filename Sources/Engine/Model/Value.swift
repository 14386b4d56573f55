#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A value held by an attribute or relationship of a managed object.
///
/// The engine's one value type: the store reads and writes it, predicates compare it,
/// controllers build sort keys from it. The server translates it to and from JSON.
public enum Value: Hashable, Sendable {
    case null
    case integer(Int64)
    case double(Double)
    case bool(Bool)
    case string(String)
    /// Seconds since 1970-01-01T00:00:00Z, held to the millisecond (the wire's precision).
    case date(Double)
    case binary([UInt8])
    /// Canonical lowercase 8-4-4-4-12 text.
    case uuid(String)
    /// A to-one relationship's destination.
    case object(ObjectID)
    /// A to-many relationship's destinations, ascending by id number.
    case objects([ObjectID])

    public var isNull: Bool { if case .null = self { return true } else { return false } }

    /// Text compares by its Unicode scalars (as SQLite and predicates do), not by Swift's
    /// canonical equivalence: `"é"` and `"e\u{301}"` are different values, so changing one
    /// into the other is a change.
    public static func == (a: Value, b: Value) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.integer(let x), .integer(let y)): return x == y
        case (.double(let x), .double(let y)), (.date(let x), .date(let y)): return x == y
        case (.bool(let x), .bool(let y)): return x == y
        case (.string(let x), .string(let y)), (.uuid(let x), .uuid(let y)):
            return sameScalars(x, y)
        case (.binary(let x), .binary(let y)): return x == y
        case (.object(let x), .object(let y)): return x == y
        case (.objects(let x), .objects(let y)): return x == y
        default: return false
        }
    }

    /// Exact string equality: the same Unicode scalars, so canonically equivalent spellings
    /// differ (as in SQLite). UTF-8 spells each scalar sequence one way only, so comparing the
    /// bytes decides it.
    static func sameScalars(_ x: String, _ y: String) -> Bool {
        guard x.utf8.count == y.utf8.count else { return false }
        return withUTF8Bytes(of: x, and: y) { a, b in
            a.isEmpty || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .integer(let v):
            hasher.combine(1)
            hasher.combine(v)
        case .double(let v):
            hasher.combine(2)
            hasher.combine(v)
        case .bool(let v):
            hasher.combine(3)
            hasher.combine(v)
        case .string(let s):
            hasher.combine(4)
            for u in s.utf8 { hasher.combine(u) }
        case .date(let v):
            hasher.combine(5)
            hasher.combine(v)
        case .binary(let b):
            hasher.combine(6)
            hasher.combine(b)
        case .uuid(let s):
            hasher.combine(7)
            for u in s.utf8 { hasher.combine(u) }
        case .object(let id):
            hasher.combine(8)
            hasher.combine(id)
        case .objects(let ids):
            hasher.combine(9)
            hasher.combine(ids)
        }
    }
}

/// A permanent object id, `Entity/N` on the wire. N is the row's primary key.
public struct ObjectID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let entity: String
    public let number: Int64

    public init(entity: String, number: Int64) {
        self.entity = entity
        self.number = number
    }

    /// Parses `Entity/N` (N a positive decimal integer); nil for anything else.
    public init?(_ text: String) {
        guard let (slash, number) = Self.parts(text) else { return nil }
        self.init(entity: String(text[..<text.utf8.index(text.utf8.startIndex, offsetBy: slash)]), number: number)
    }

    /// Whether `text` is an `Entity/N` id, without making one (a param is checked before it is
    /// read).
    public static func isWellFormed(_ text: String) -> Bool { parts(text) != nil }

    /// How many bytes the entity name takes and what N is.
    private static func parts(_ text: String) -> (slash: Int, number: Int64)? {
        // By bytes in place, not Characters or index steps: a batch names thousands of ids.
        var text = text
        return text.withUTF8 { parts(bytes: $0) }
    }

    private static func parts(bytes: UnsafeBufferPointer<UInt8>) -> (slash: Int, number: Int64)? {
        // N's digits run back from the end to the last slash, which may not come first.
        var slash = bytes.count - 1
        while slash > 0, bytes[slash] >= UInt8(ascii: "0"), bytes[slash] <= UInt8(ascii: "9") { slash -= 1 }
        guard slash > 0, bytes[slash] == UInt8(ascii: "/"), slash < bytes.count - 1 else { return nil }
        var n: Int64 = 0
        for byte in bytes[(slash + 1)...] {
            let (times, o1) = n.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            guard !o1, !o2 else { return nil }
            n = sum
        }
        guard n > 0 else { return nil }
        return (slash, n)
    }

    public var description: String { "\(entity)/\(number)" }

    /// The number and the entity name's length: hashing every byte of the name cost more
    /// than the rest of a lookup in the id-keyed tables a big cycle fills. Ids of different
    /// entities with one number and equal-length names share a hash; equality tells them apart.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(number)
        hasher.combine(entity.utf8.count)
    }

    /// What Dictionary and Set hash with: the same two parts, seeded per table as by
    /// default, mixed by one multiply-xorshift round (splitmix64's finalizer) instead of a
    /// SipHash per lookup, which was most of a lookup in the tables a million-row cycle fills.
    public func _rawHashValue(seed: Int) -> Int {
        var x =
            (UInt64(bitPattern: number) &+ (UInt64(truncatingIfNeeded: entity.utf8.count) &* 0x9E37_79B9_7F4A_7C15))
            ^ UInt64(truncatingIfNeeded: seed)
        x = (x ^ (x >> 30)) &* 0xBF58_476D_1CE4_E5B9
        x = (x ^ (x >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int(truncatingIfNeeded: x ^ (x >> 31))
    }

    public static func == (a: ObjectID, b: ObjectID) -> Bool {
        a.number == b.number && a.entity == b.entity
    }

    public static func < (a: ObjectID, b: ObjectID) -> Bool {
        a.entity == b.entity ? a.number < b.number : a.entity < b.entity
    }

    /// Where `id` is in `list`, ascending by the ids `key` reads, at `start` or after it; nil
    /// when it is not there. An id of a run of consecutive numbers (a bulk load's new rows) is
    /// found at the place its number gives, an id asked for just after the last one found
    /// (`start` past it) at `start`, anything else by a binary search.
    @inlinable
    public static func index<T>(of id: ObjectID, in list: [T], from start: Int = 0, by key: (T) -> ObjectID) -> Int? {
        guard start < list.count else { return nil }
        if let first = list.first.map(key), id.number >= first.number, id.number - first.number < list.count {
            let guess = Int(id.number - first.number)
            if guess >= start, key(list[guess]) == id { return guess }
        }
        if start > 0, key(list[start]) == id { return start }
        var lo = start
        var hi = list.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if key(list[mid]) < id { lo = mid + 1 } else { hi = mid }
        }
        return lo < list.count && key(list[lo]) == id ? lo : nil
    }
}

/// An object's values by key: every attribute, every to-one relationship (`.object` or
/// `.null`) and every to-many relationship (`.objects`).
public typealias Snapshot = [String: Value]
