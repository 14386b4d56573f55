import Foundation
import JSON
import Server
import Testing

/// protocol.md's method tables (`| method | params | result |`) and its numbered list of
/// notifications (§10) name exactly the document's methods, with the same parameter names.
@Suite struct ProtocolTablesTests {
    struct Row {
        var line: Int
        var method: String
        var params: Set<String>
    }

    static func rows() throws -> [Row] {
        let text = try String(contentsOfFile: ProtocolExamplesTests.root + "/protocol.md", encoding: .utf8)
        var rows: [Row] = []
        var inTable = false
        for (i, line) in text.components(separatedBy: "\n").enumerated() {
            if line.hasPrefix("| method | params |") {
                inTable = true
                continue
            }
            if inTable, line.hasPrefix("|---") { continue }
            if inTable, line.hasPrefix("|") {
                let cells = cells(line)
                if cells.count >= 2, let method = method(in: cells[0]) {
                    rows.append(Row(line: i + 1, method: method, params: params(in: cells[1])))
                }
                continue
            }
            inTable = false
            // `1. `controller/willChangeContent` `{controller}``
            if let match = line.firstMatch(of: /^\d+\. `([^`]+)` `([^`]+)`/) {
                rows.append(Row(line: i + 1, method: String(match.1), params: params(in: String(match.2))))
            }
        }
        return rows
    }

    /// Cells of a table row; `\|` is a pipe inside a cell.
    static func cells(_ line: String) -> [String] {
        var cells: [String] = []
        var current = ""
        var previous: Character = " "
        for c in line.dropFirst() {
            if c == "|", previous != "\\" {
                cells.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
            } else {
                current.append(c)
            }
            previous = c
        }
        return cells
    }

    static func method(in cell: String) -> String? {
        guard let match = cell.firstMatch(of: /^`([^`]+)`/) else { return nil }
        return String(match.1)
    }

    /// The top-level member names of the first `{...}` in a cell (`—` and `any`: none).
    static func params(in cell: String) -> Set<String> {
        guard let start = cell.firstIndex(of: "{") else { return [] }
        var names: Set<String> = []
        var depth = 0
        var expectingName = false
        var name = ""
        for c in cell[start...] {
            if expectingName, c.isLetter || c == "$" || c == "_" || (!name.isEmpty && c.isNumber) {
                name.append(c)
                continue
            }
            if expectingName, !name.isEmpty {
                names.insert(name)
                name = ""
                expectingName = false
            }
            if expectingName, c != " " { expectingName = false }
            switch c {
            case "{", "[", "(":
                depth += 1
                if depth == 1 { expectingName = true }
            case "}", "]", ")":
                depth -= 1
                if depth == 0 { return names }
            case ",":
                if depth == 1 { expectingName = true }
            default: break
            }
        }
        return names
    }

    static let documented = Server().methods.descriptions

    @Test func theTablesAreRead() throws {
        let rows = try Self.rows()
        #expect(rows.count >= 30)
        #expect(
            rows.first { $0.method == "context/create" }?.params
                == ["name", "parent", "mergesChangesFromParent", "mergePolicy", "transactionAuthor", "undo"])
        #expect(
            rows.first { $0.method == "controller/didChangeObject" }?.params
                == ["controller", "type", "id", "indexPath", "newIndexPath", "object"])
    }

    @Test func everyTableMethodIsInTheDocumentWithTheSameParams() throws {
        for row in try Self.rows() {
            guard let d = Self.documented.first(where: { $0.name == row.method }) else {
                Issue.record("protocol.md:\(row.line): \(row.method) is not in the OpenRPC document")
                continue
            }
            #expect(Set(d.params.map(\.name)) == row.params, "protocol.md:\(row.line): \(row.method)")
        }
    }

    @Test func everyDocumentMethodIsInATable() throws {
        let rows = try Self.rows()
        for d in Self.documented {
            #expect(
                rows.filter { $0.method == d.name }.count == 1,
                "\(d.name): in \(rows.filter { $0.method == d.name }.count) protocol.md rows")
        }
    }
}
