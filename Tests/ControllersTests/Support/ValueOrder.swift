import Model

/// A total order on values for tests: by kind, then by value.
func compareValues(_ a: Value, _ b: Value) -> Int {
    func rank(_ v: Value) -> Int {
        switch v {
        case .null: return 0
        case .bool: return 1
        case .integer, .double: return 2
        case .date: return 3
        case .string: return 4
        case .uuid: return 5
        case .binary: return 6
        case .object: return 7
        case .objects: return 8
        }
    }
    func cmp<T: Comparable>(_ x: T, _ y: T) -> Int { x < y ? -1 : (x > y ? 1 : 0) }
    let (ra, rb) = (rank(a), rank(b))
    if ra != rb { return cmp(ra, rb) }
    switch (a, b) {
    case (.bool(let x), .bool(let y)): return cmp(x ? 1 : 0, y ? 1 : 0)
    case (.integer(let x), .integer(let y)): return cmp(x, y)
    case (.integer(let x), .double(let y)): return cmp(Double(x), y)
    case (.double(let x), .integer(let y)): return cmp(x, Double(y))
    case (.double(let x), .double(let y)): return cmp(x, y)
    case (.date(let x), .date(let y)): return cmp(x, y)
    case (.string(let x), .string(let y)):
        if x.unicodeScalars.elementsEqual(y.unicodeScalars) { return 0 }
        return x.unicodeScalars.lexicographicallyPrecedes(y.unicodeScalars) ? -1 : 1
    case (.uuid(let x), .uuid(let y)): return cmp(x, y)
    case (.object(let x), .object(let y)): return cmp(x, y)
    default: return 0
    }
}

/// Lexicographic comparison of keys with per-component direction.
func compareKeys(_ a: SortKey, _ b: SortKey, ascending: [Bool]) -> Int {
    for i in 0..<min(a.count, b.count) {
        let c = compareValues(a[i], b[i])
        if c != 0 { return ascending[i] ? c : -c }
    }
    return 0
}
