import CLibPQ

#if canImport(Glibc)
    import Glibc
#endif

/// One row of a result read in place (`PGConnection.execPrepared(_:_:eachRow:)`): values are
/// decoded from libpq's buffer on demand. Valid only during the call that hands it out.
public struct PGRow {
    let result: OpaquePointer
    let row: Int32

    public func isNull(_ column: Int) -> Bool { PQgetisnull(result, row, Int32(column)) != 0 }

    /// The value as an integer (nil: NULL), parsed without making a string.
    public func int64(_ column: Int) -> Int64? {
        guard !isNull(column) else { return nil }
        return strtoll(PQgetvalue(result, row, Int32(column)), nil, 10)
    }

    /// The value's text (nil: NULL).
    public func text(_ column: Int) -> String? {
        guard !isNull(column) else { return nil }
        return String(cString: PQgetvalue(result, row, Int32(column)))
    }
}
