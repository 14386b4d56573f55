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
        guard !isNull(column), let text = PQgetvalue(result, row, Int32(column)) else { return nil }
        let length = Int(PQgetlength(result, row, Int32(column)))
        return Self.decimal(text, length) ?? strtoll(text, nil, 10)
    }

    /// Decimal digits with an optional minus sign, bigint's text form, in range; nil for
    /// anything else (the caller then falls back on strtoll). A third of a million-row key
    /// read went to strtoll, which is written for every base and locale.
    static func decimal(_ p: UnsafePointer<CChar>, _ length: Int) -> Int64? {
        let negative = length > 0 && p[0] == 0x2D
        var i = negative ? 1 : 0
        guard i < length else { return nil }
        var magnitude: UInt64 = 0
        while i < length {
            let digit = UInt64(UInt8(bitPattern: p[i]) &- 0x30)
            guard digit < 10 else { return nil }
            let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(digit)
            guard !o1 && !o2 else { return nil }
            magnitude = sum
            i += 1
        }
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
            return Int64(bitPattern: 0 &- magnitude)
        }
        guard magnitude <= UInt64(Int64.max) else { return nil }
        return Int64(magnitude)
    }

    /// The value's text (nil: NULL).
    public func text(_ column: Int) -> String? {
        guard !isNull(column) else { return nil }
        return String(cString: PQgetvalue(result, row, Int32(column)))
    }
}
