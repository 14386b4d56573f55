import Model

/// One component of the sort keys held by a tree node, stored compactly.
///
/// While every value in the column has the same scalar type (integer, double, date or
/// boolean) it is kept as 8-byte bit patterns; the first value of another type turns the
/// column into plain `Value`s. Integer and date keys thus cost 8 bytes per row.
struct KeyColumn {
    enum Kind: UInt8 { case empty, integer, double, date, bool, mixed }

    private(set) var kind: Kind = .empty
    private var bits: [Int64] = []
    private var values: [Value] = []

    var count: Int { kind == .mixed ? values.count : bits.count }

    func value(at i: Int) -> Value {
        switch kind {
        case .integer: return .integer(bits[i])
        case .double: return .double(Double(bitPattern: UInt64(bitPattern: bits[i])))
        case .date: return .date(Double(bitPattern: UInt64(bitPattern: bits[i])))
        case .bool: return .bool(bits[i] != 0)
        case .mixed: return values[i]
        case .empty: preconditionFailure("empty key column")
        }
    }

    /// Value `i` when the column holds only integers; nil otherwise.
    @inline(__always)
    func integer(at i: Int) -> Int64? { kind == .integer ? bits[i] : nil }

    mutating func reserve(_ n: Int) {
        if kind == .mixed { values.reserveCapacity(n) } else { bits.reserveCapacity(n) }
    }

    mutating func insert(_ v: Value, at i: Int) {
        if kind != .mixed, let b = bitsIfCompact(v) {
            bits.insert(b, at: i)
            return
        }
        makeMixed()
        values.insert(v, at: i)
    }

    mutating func append(_ v: Value) {
        if kind == .integer, case .integer(let x) = v {
            bits.append(x)
            return
        }
        if kind != .mixed, let b = bitsIfCompact(v) {
            bits.append(b)
            return
        }
        makeMixed()
        values.append(v)
    }

    mutating func remove(at i: Int) {
        if kind == .mixed { values.remove(at: i) } else { bits.remove(at: i) }
        if count == 0 { self = KeyColumn() }
    }

    /// Moves the values from `start` on into a new column (a node split).
    mutating func split(at start: Int) -> KeyColumn {
        var right = KeyColumn()
        right.kind = kind
        if kind == .mixed {
            right.values = Array(values[start...])
            values.removeSubrange(start...)
        } else {
            right.bits = Array(bits[start...])
            bits.removeSubrange(start...)
        }
        return right
    }

    /// Appends every value of `other` (a node merge).
    mutating func append(contentsOf other: KeyColumn) {
        if other.count == 0 { return }
        if kind == other.kind || kind == .empty, other.kind != .mixed {
            kind = other.kind
            bits.append(contentsOf: other.bits)
        } else {
            makeMixed()
            for i in 0..<other.count { values.append(other.value(at: i)) }
        }
    }

    /// Bytes held by the column's buffers (capacity, not count).
    var footprint: Int {
        kind == .mixed ? values.capacity * MemoryLayout<Value>.stride : bits.capacity * 8
    }

    /// The value's bit pattern when it fits this column's compact kind (setting the kind of
    /// an empty column).
    private mutating func bitsIfCompact(_ v: Value) -> Int64? {
        let (k, b): (Kind, Int64)
        switch v {
        case .integer(let x): (k, b) = (.integer, x)
        case .double(let x): (k, b) = (.double, Int64(bitPattern: x.bitPattern))
        case .date(let x): (k, b) = (.date, Int64(bitPattern: x.bitPattern))
        case .bool(let x): (k, b) = (.bool, x ? 1 : 0)
        default: return nil
        }
        if kind == .empty || bits.isEmpty {
            kind = k
            return b
        }
        return kind == k ? b : nil
    }

    private mutating func makeMixed() {
        if kind == .mixed { return }
        var vs: [Value] = []
        vs.reserveCapacity(Swift.max(bits.capacity, 4))
        for i in 0..<bits.count { vs.append(value(at: i)) }
        values = vs
        bits = []
        kind = .mixed
    }
}
