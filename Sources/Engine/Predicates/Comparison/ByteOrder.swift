import Model

/// Unicode scalar order on strings, which is UTF-8 byte order: exactly what SQLite's BINARY
/// collation does. Swift's own `String ==` and `<` use canonical equivalence (`é` equals
/// `e` + U+0301), which SQL does not, so predicates never use them on stored text.
public enum ByteOrder {
    public static func compare(_ a: String, _ b: String) -> Int {
        withUTF8Bytes(of: a, and: b) { x, y in compare(UnsafeRawBufferPointer(x), UnsafeRawBufferPointer(y)) }
    }

    public static func equal(_ a: String, _ b: String) -> Bool {
        withUTF8Bytes(of: a, and: b) { x, y in
            x.count == y.count && (x.count == 0 || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0)
        }
    }

    public static func compare(_ x: UnsafeRawBufferPointer, _ y: UnsafeRawBufferPointer) -> Int {
        let n = min(x.count, y.count)
        if n > 0 {
            let c = memcmp(x.baseAddress!, y.baseAddress!, n)
            if c != 0 { return c < 0 ? -1 : 1 }
        }
        return x.count == y.count ? 0 : (x.count < y.count ? -1 : 1)
    }

    public static func compare(_ a: [UInt8], _ b: [UInt8]) -> Int {
        a.withUnsafeBytes { x in b.withUnsafeBytes { y in compare(x, y) } }
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
