import ArgumentParser
import JSON

/// How `query` and `watch` print rows (protocol.md §1.7).
enum RowFormat: String, ExpressibleByArgument, CaseIterable {
    /// One wire object per line, exactly as `context/fetch` returns it.
    case ndjson
    /// A header (`id`, then the keys), then one line per row; RFC 4180 quoting.
    case csv
    /// Aligned columns for a person.
    case table
}

/// The columns of a CSV or table: `id`, then `--keys`, or else every attribute and then every
/// relationship of the entity in model order (the order of the wire's objects, §4).
enum Columns {
    static func of(entity: String, keys: [String]?, model: JSON?) -> [String] {
        if let keys { return ["id"] + keys }
        guard case .array(let entities)? = model?["entities"],
            let e = entities.first(where: { $0["name"] == .string(entity) })
        else { return ["id"] }
        return ["id"] + (e["attributes"]?.objectValue?.keys ?? []) + (e["relationships"]?.objectValue?.keys ?? [])
    }
}

/// A value as text in one cell: strings as they are, null empty, numbers and booleans as in
/// JSON, a to-many relationship as its ids separated by spaces.
enum Cell {
    static func text(_ value: JSON?) -> String {
        switch value {
        case nil, .null?: return ""
        case .string(let s)?: return s
        case .array(let items)?: return items.map { text($0) }.joined(separator: " ")
        case let other?: return other.serializedString
        }
    }

    /// RFC 4180: a field holding a comma, a quote, CR or LF is quoted, its quotes doubled.
    static func csv(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) else {
            return text
        }
        var quoted = "\""
        for c in text { quoted += c == "\"" ? "\"\"" : String(c) }
        return quoted + "\""
    }

    /// A table cell stays on one line: control characters are written as escapes.
    static func table(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                out +=
                    "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                    + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

/// Renders rows as NDJSON, CSV or a table.
struct RowPrinter {
    let columns: [String]

    func ndjson(_ object: JSON) -> String { object.serializedString }

    func csvHeader() -> String { columns.map(Cell.csv).joined(separator: ",") }

    func csvRow(_ object: JSON) -> String {
        columns.map { Cell.csv(Cell.text(object[$0])) }.joined(separator: ",")
    }

    /// Header, a rule, then the rows, each column as wide as its widest cell (in terminal
    /// cells: a CJK character or an emoji takes two).
    func table(_ objects: [JSON]) -> [String] {
        let rows = objects.map { object in columns.map { Cell.table(Cell.text(object[$0])) } }
        var widths = columns.map(TerminalWidth.cells)
        for row in rows {
            for (i, cell) in row.enumerated() { widths[i] = max(widths[i], TerminalWidth.cells(cell)) }
        }
        func line(_ cells: [String]) -> String {
            var text = ""
            for (i, cell) in cells.enumerated() {
                if i > 0 { text += "  " }
                let pad = widths[i] - TerminalWidth.cells(cell)
                text += i == cells.count - 1 ? cell : cell + String(repeating: " ", count: pad)
            }
            while text.hasSuffix(" ") { text.removeLast() }
            return text
        }
        return [line(columns), line(widths.map { String(repeating: "-", count: $0) })] + rows.map(line)
    }
}
