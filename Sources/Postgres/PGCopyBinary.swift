/// COPY's binary format (`COPY … FROM STDIN (FORMAT binary)`): a signature and two zero
/// words, then per row a 16-bit field count and per field a 32-bit length (-1: NULL) and the
/// value as its type's binary send format (big-endian integers and IEEE doubles, raw UTF-8
/// text and bytea bytes, one byte per boolean), then -1 as a 16-bit count. The server reads
/// it without parsing text, and no value needs escaping.
public struct PGCopyBinaryBuffer {
    public internal(set) var bytes: [UInt8] = []

    public init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    /// The signature and the flags and extension-length words that open the stream.
    static let header: [UInt8] = Array("PGCOPY\n".utf8) + [0xFF, 0x0D, 0x0A, 0x00] + [0, 0, 0, 0, 0, 0, 0, 0]
    /// The end-of-data marker: a field count of -1.
    static let trailer: [UInt8] = [0xFF, 0xFF]

    /// Starts a row of `fields` columns.
    public mutating func row(fields: Int) { appendBigEndian(UInt16(truncatingIfNeeded: fields)) }

    public mutating func null() { appendBigEndian(UInt32.max) }

    /// A bigint column.
    public mutating func int8(_ value: Int64) {
        appendBigEndian(UInt32(8))
        appendBigEndian(UInt64(bitPattern: value))
    }

    /// A double precision column.
    public mutating func float8(_ value: Double) {
        appendBigEndian(UInt32(8))
        appendBigEndian(value.bitPattern)
    }

    /// A boolean column.
    public mutating func bool(_ value: Bool) {
        appendBigEndian(UInt32(1))
        bytes.append(value ? 1 : 0)
    }

    /// A text column: the string's UTF-8 bytes.
    public mutating func text(_ value: String) {
        var value = value
        value.withUTF8 { raw($0) }
    }

    /// A bytea column (or any value given as its bytes).
    public mutating func raw(_ value: UnsafeBufferPointer<UInt8>) {
        appendBigEndian(UInt32(value.count))
        bytes.append(contentsOf: value)
    }

    mutating func removeAll() { bytes.removeAll(keepingCapacity: true) }

    private mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }
}

extension PGConnection {
    /// Copies `rows` in COPY's binary format, each written by `fields` (which starts the row
    /// with its field count). Returns the number of rows copied.
    @discardableResult
    public func copyRowsBinary<Row>(
        into table: String, columns: [String], _ rows: some Sequence<Row>,
        fields: (Row, inout PGCopyBinaryBuffer) throws -> Void
    ) throws -> Int {
        var start = PGCopyBinaryBuffer(capacity: 72_000)
        start.bytes += PGCopyBinaryBuffer.header
        return try copyInChunks(
            "COPY \(quoteIdentifier(table)) (\(columns.map(quoteIdentifier).joined(separator: ", "))) FROM STDIN (FORMAT binary)",
            rows, into: start, trailer: PGCopyBinaryBuffer.trailer, row: fields)
    }
}
