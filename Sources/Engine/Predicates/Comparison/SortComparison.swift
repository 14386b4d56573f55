import Model

/// The three sort comparators, once: used by `ObjectOrdering.compare` in memory and by the
/// collations `fetchd_nocase` and `fetchd_localized` in ORDER BY.
public enum SortComparison {
    /// Null first; text by the comparator; every other kind by `ScalarOrder`.
    @inline(__always)
    public static func compare(_ a: Value, _ b: Value, _ comparator: Comparator) -> Int {
        // The common key kinds first, answered as `ScalarOrder` answers them.
        switch (a, b) {
        case (.integer(let x), .integer(let y)): return x == y ? 0 : (x < y ? -1 : 1)
        case (.double(let x), .double(let y)), (.date(let x), .date(let y)): return x == y ? 0 : (x < y ? -1 : 1)
        default: break
        }
        switch (a, b) {
        case (.null, .null): return 0
        case (.null, _): return -1
        case (_, .null): return 1
        default: break
        }
        if let x = ValueComparison.text(a), let y = ValueComparison.text(b) {
            return compareText(x, y, comparator)
        }
        // Values of different storage classes (a plain client's against the model) order as
        // SQLite orders them: numbers, then text, then blobs.
        return ScalarOrder.compare(a, b) ?? crossClass(a, b) ?? 0
    }

    /// Values of different SQLite storage classes compare by class; nil for one class.
    public static func crossClass(_ a: Value, _ b: Value) -> Int? {
        let d = storageRank(a) - storageRank(b)
        return d == 0 ? nil : d
    }

    static func storageRank(_ v: Value) -> Int {
        switch v {
        case .null: return 0
        case .integer, .double, .bool, .date, .object: return 1
        case .string, .uuid: return 2
        case .binary, .objects: return 3
        }
    }

    public static func compareText(_ a: String, _ b: String, _ comparator: Comparator) -> Int {
        switch comparator {
        case .compare: return ByteOrder.compare(a, b)
        case .caseInsensitiveCompare: return caseInsensitive(a, b)
        case .localizedStandardCompare: return localizedStandard(a, b)
        }
    }

    /// Byte order of the lower-case folds, comparing ASCII in place until the first
    /// non-ASCII byte (folding is per scalar, so the shortcut cannot change the answer).
    public static func caseInsensitive(_ a: String, _ b: String) -> Int {
        let quick: Int? = withUTF8Bytes(of: a, and: b) { x, y in
            let n = min(x.count, y.count)
            var i = 0
            while i < n {
                var p = x[i]
                var q = y[i]
                if p >= 0x80 || q >= 0x80 { return nil }
                if p >= 65 && p <= 90 { p += 32 }
                if q >= 65 && q <= 90 { q += 32 }
                if p != q { return p < q ? -1 : 1 }
                i += 1
            }
            if x.count == y.count { return 0 }
            // The longer one's rest may fold to nothing only if it is non-ASCII.
            let rest = x.count > n ? x[n] : y[n]
            if rest >= 0x80 { return nil }
            return x.count < y.count ? -1 : 1
        }
        if let quick { return quick }
        return ByteOrder.compare(
            TextFolding.fold(a, caseInsensitive: true, diacriticInsensitive: false),
            TextFolding.fold(b, caseInsensitive: true, diacriticInsensitive: false))
    }

    /// Case- and diacritic-insensitive; runs of ASCII digits compare by numeric value
    /// ("file2" < "file10"; "01" equals "1"); other scalars by code point.
    public static func localizedStandard(_ a: String, _ b: String) -> Int {
        let x = Array(TextFolding.fold(a, caseInsensitive: true, diacriticInsensitive: true).unicodeScalars)
        let y = Array(TextFolding.fold(b, caseInsensitive: true, diacriticInsensitive: true).unicodeScalars)
        var i = 0
        var j = 0
        while i < x.count && j < y.count {
            if isDigit(x[i]) && isDigit(y[j]) {
                var i2 = i
                var j2 = j
                while i < x.count, x[i] == "0" { i += 1 }
                while j < y.count, y[j] == "0" { j += 1 }
                i2 = i
                j2 = j
                while i2 < x.count, isDigit(x[i2]) { i2 += 1 }
                while j2 < y.count, isDigit(y[j2]) { j2 += 1 }
                let lx = i2 - i
                let ly = j2 - j
                if lx != ly { return lx < ly ? -1 : 1 }
                while i < i2 {
                    if x[i] != y[j] { return x[i].value < y[j].value ? -1 : 1 }
                    i += 1
                    j += 1
                }
                continue
            }
            if x[i] != y[j] { return x[i].value < y[j].value ? -1 : 1 }
            i += 1
            j += 1
        }
        let rx = i < x.count
        let ry = j < y.count
        return rx == ry ? 0 : (rx ? 1 : -1)
    }

    private static func isDigit(_ s: Unicode.Scalar) -> Bool { s >= "0" && s <= "9" }
}
