/// COPY's text format (the default of `COPY … FROM STDIN`): columns separated by tabs, rows
/// ended by newlines, NULL as `\N`, and backslash, tab, newline and carriage return escaped.
public enum PGCopyText {
    /// One row as a line, ready for the `send` closure of `PGConnection.copyIn`.
    public static func line(_ values: [String?]) -> String {
        var buffer = PGCopyBuffer()
        for value in values { buffer.field(value) }
        buffer.endRow()
        return String(decoding: buffer.bytes, as: UTF8.self)
    }
}

/// COPY text built as UTF-8 bytes, field by field: no per-row strings or arrays. Escaping
/// works on bytes because the four special characters are ASCII, and ASCII bytes never occur
/// inside a multi-byte UTF-8 sequence.
public struct PGCopyBuffer {
    public internal(set) var bytes: [UInt8] = []
    private var rowStarted = false

    public init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    /// The next column of the current row; nil is NULL.
    public mutating func field(_ value: String?) {
        separate()
        guard var value else {
            bytes.append(0x5C) // \N
            bytes.append(0x4E)
            return
        }
        value.withUTF8 { append(escaping: $0) }
    }

    /// The next column, an integer (never needs escaping).
    public mutating func field(_ value: Int64) {
        separate()
        var v = value.magnitude
        if value < 0 { bytes.append(0x2D) }
        let start = bytes.count
        repeat {
            bytes.append(0x30 + UInt8(v % 10))
            v /= 10
        } while v > 0
        bytes[start...].reverse()
    }

    public mutating func endRow() {
        bytes.append(0x0A)
        rowStarted = false
    }

    mutating func removeAll() { bytes.removeAll(keepingCapacity: true) }

    private mutating func separate() {
        if rowStarted { bytes.append(0x09) } else { rowStarted = true }
    }

    /// Copies runs without special bytes whole (the common case is one run).
    private mutating func append(escaping src: UnsafeBufferPointer<UInt8>) {
        var runStart = 0
        for (i, b) in src.enumerated() {
            let escaped: UInt8
            switch b {
            case 0x5C: escaped = 0x5C // backslash
            case 0x09: escaped = 0x74 // t
            case 0x0A: escaped = 0x6E // n
            case 0x0D: escaped = 0x72 // r
            default: continue
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: src[runStart..<i]))
            bytes.append(0x5C)
            bytes.append(escaped)
            runStart = i + 1
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: src[runStart...]))
    }
}

extension PGConnection {
    /// Copies `rows` (text values, nil = NULL) with `COPY <table> (<columns>) FROM STDIN`;
    /// `table` and `columns` are quoted as identifiers. Returns the number of rows copied.
    @discardableResult
    public func copyRows(into table: String, columns: [String], _ rows: some Sequence<[String?]>) throws -> Int {
        try copyRows(into: table, columns: columns, rows) { row, buffer in
            for value in row { buffer.field(value) }
        }
    }

    /// Copies `rows`, each written by `fields` as the columns in order (the row's end is
    /// added here). Returns the number of rows copied.
    @discardableResult
    public func copyRows<Row>(
        into table: String, columns: [String], _ rows: some Sequence<Row>,
        fields: (Row, inout PGCopyBuffer) throws -> Void
    ) throws -> Int {
        try copyInChunks(
            "COPY \(quoteIdentifier(table)) (\(columns.map(quoteIdentifier).joined(separator: ", "))) FROM STDIN",
            rows, into: PGCopyBuffer(capacity: 72_000)
        ) { row, buffer in
            try fields(row, &buffer)
            buffer.endRow()
        }
    }
}

/// A COPY stream built in one reused byte buffer.
protocol PGCopyChunk {
    var bytes: [UInt8] { get }
    mutating func removeAll()
}

extension PGCopyBuffer: PGCopyChunk {}
extension PGCopyBinaryBuffer: PGCopyChunk {}

extension PGConnection {
    /// Runs `sql` (a `COPY … FROM STDIN`) and sends `rows` as `row` writes them into
    /// `buffer`, in chunks of about 64 KiB (one call per row costs more than the copying);
    /// `buffer` may start with a header, and `trailer` ends the stream.
    func copyInChunks<Row, Buffer: PGCopyChunk>(
        _ sql: String, _ rows: some Sequence<Row>, into buffer: Buffer, trailer: [UInt8] = [],
        row: (Row, inout Buffer) throws -> Void
    ) throws -> Int {
        try copyInBytes(sql) { send in
            var buffer = buffer
            for r in rows {
                try row(r, &buffer)
                if buffer.bytes.count >= 65_536 {
                    try send(buffer.bytes)
                    buffer.removeAll()
                }
            }
            if !trailer.isEmpty || !buffer.bytes.isEmpty { try send(buffer.bytes + trailer) }
        }
    }
}
