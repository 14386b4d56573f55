/// COPY's text format (the default of `COPY … FROM STDIN`): columns separated by tabs, rows
/// ended by newlines, NULL as `\N`, and backslash, tab, newline and carriage return escaped.
public enum PGCopyText {
    /// One row as a line, ready for the `send` closure of `PGConnection.copyIn`.
    public static func line(_ values: [String?]) -> String {
        var line = ""
        for (i, value) in values.enumerated() {
            if i > 0 { line.append("\t") }
            if let value { escape(value, into: &line) } else { line.append("\\N") }
        }
        line.append("\n")
        return line
    }

    static func escape(_ value: String, into out: inout String) {
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\\": out.append("\\\\")
            case "\t": out.append("\\t")
            case "\n": out.append("\\n")
            case "\r": out.append("\\r")
            default: out.unicodeScalars.append(scalar)
            }
        }
    }
}

extension PGConnection {
    /// Copies `rows` (text values, nil = NULL) with `COPY <table> (<columns>) FROM STDIN`;
    /// `table` and `columns` are quoted as identifiers. Returns the number of rows copied.
    @discardableResult
    public func copyRows(into table: String, columns: [String], _ rows: some Sequence<[String?]>) throws -> Int {
        let list = columns.map(quoteIdentifier).joined(separator: ", ")
        return try copyIn("COPY \(quoteIdentifier(table)) (\(list)) FROM STDIN") { send in
            // Sent in chunks of about 64 KiB: one call per row costs more than the copying.
            var chunk = ""
            for row in rows {
                chunk += PGCopyText.line(row)
                if chunk.utf8.count >= 65_536 {
                    try send(chunk)
                    chunk = ""
                }
            }
            if !chunk.isEmpty { try send(chunk) }
        }
    }
}
