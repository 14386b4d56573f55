import CLibPQ

/// A PostgreSQL type OID (`pg_type.oid`), as reported for each result column.
public typealias PGOid = UInt32

/// A parameter value in text format (PostgreSQL parses it by the parameter's inferred type);
/// nil in a parameter list is SQL NULL.
public enum PGValue: Sendable, Hashable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    case text(String)

    public init(stringLiteral value: String) { self = .text(value) }
    public init(integerLiteral value: Int64) { self = .text(String(value)) }
    public static func int(_ value: Int64) -> PGValue { .text(String(value)) }
    public static func double(_ value: Double) -> PGValue { .text(String(value)) }
    public static func bool(_ value: Bool) -> PGValue { .text(value ? "t" : "f") }
    /// Integers as one array parameter (`{1,2,3}`, for `= ANY($n::bigint[])`).
    public static func ints(_ values: [Int64]) -> PGValue {
        .text("{" + values.map(String.init).joined(separator: ",") + "}")
    }

    public var text: String {
        switch self {
        case .text(let value): return value
        }
    }
}

/// A fully read query result: column names, type OIDs and rows of text values (nil = NULL).
/// Copied out of the libpq result so it outlives it.
public struct PGResult: Sendable {
    public let columns: [String]
    public let types: [PGOid]
    public let rows: [[String?]]
    /// The command tag's row count (`INSERT 0 3` → 3), or nil when the command reports none.
    public let affectedRows: Int?

    public var count: Int { rows.count }

    /// The index of a column by name.
    public func column(_ name: String) -> Int? { columns.firstIndex(of: name) }

    /// The value at row `row` of the column named `name`.
    public func value(_ row: Int, _ name: String) -> String? {
        guard let index = column(name) else { return nil }
        return rows[row][index]
    }

    /// The value at `row`, `column` (nil: NULL).
    public subscript(row: Int, column: Int) -> String? { rows[row][column] }

    /// The value at `row`, `column` as an integer (nil: NULL or not an integer).
    public func int64(_ row: Int, _ column: Int) -> Int64? { rows[row][column].flatMap { Int64($0) } }

    init(_ result: OpaquePointer) {
        let columnCount = Int(PQnfields(result))
        let rowCount = Int(PQntuples(result))
        var columns: [String] = []
        var types: [PGOid] = []
        columns.reserveCapacity(columnCount)
        for c in 0..<Int32(columnCount) {
            columns.append(String(cString: PQfname(result, c)))
            types.append(PGOid(PQftype(result, c)))
        }
        var rows: [[String?]] = []
        rows.reserveCapacity(rowCount)
        for r in 0..<Int32(rowCount) {
            var row: [String?] = []
            row.reserveCapacity(columnCount)
            for c in 0..<Int32(columnCount) {
                if PQgetisnull(result, r, c) != 0 {
                    row.append(nil)
                } else {
                    row.append(String(cString: PQgetvalue(result, r, c)))
                }
            }
            rows.append(row)
        }
        self.columns = columns
        self.types = types
        self.rows = rows
        let tuples = String(cString: PQcmdTuples(result))
        self.affectedRows = Int(tuples)
    }
}

/// One asynchronous notification (`NOTIFY channel, 'payload'`).
public struct PGNotification: Sendable, Hashable {
    public let channel: String
    public let payload: String
    /// The server process that sent it.
    public let senderPID: Int32

    public init(channel: String, payload: String, senderPID: Int32) {
        self.channel = channel
        self.payload = payload
        self.senderPID = senderPID
    }
}
