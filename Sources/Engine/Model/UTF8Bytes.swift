/// Two strings' UTF-8 bytes at once, read in place where the strings allow it (native and
/// small ones: always, on Linux). `withUTF8` needs a mutable copy of each, a retain and a
/// release, which every step of a tree search or a sort over text would pay.
@inlinable @inline(__always)
public func withUTF8Bytes<R>(
    of a: String, and b: String, _ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> R
) -> R {
    if let inPlace = a.utf8.withContiguousStorageIfAvailable({ x in
        b.utf8.withContiguousStorageIfAvailable { y in body(x, y) }
    }), let result = inPlace {
        return result
    }
    var a = a
    var b = b
    return a.withUTF8 { x in b.withUTF8 { y in body(x, y) } }
}
