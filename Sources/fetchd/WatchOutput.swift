import JSON
import Server

#if canImport(Glibc)
    import Glibc
#endif

/// What `fetchd watch` prints (protocol.md §1.7). NDJSON: first
/// `{"cycle": 0, "sections": [{name, indexTitle, numberOfObjects, objects}]}` (the current
/// rows), then per change cycle of the controller `{"cycle": n, "changes": [...]}`, where each
/// change is the params of one `controller/didChangeSection` or `controller/didChangeObject`
/// notification without `controller`, in wire order (§10.6): a client applies them as §11 says.
/// Table: the rows, redrawn after every cycle (in place on a terminal).
final class WatchOutput {
    static let controller = "watch"

    let format: WatchFormat
    let printer: RowPrinter
    let server: Server
    let sectioned: Bool
    let keys: [String]?
    private let out = Stdout()
    private let terminal = isatty(STDOUT_FILENO) != 0
    private var cycle = 0
    private var changes: [JSON]?

    init(format: WatchFormat, columns: [String], server: Server, sectioned: Bool, keys: [String]?) {
        self.format = format
        printer = RowPrinter(columns: columns)
        self.server = server
        self.sectioned = sectioned
        self.keys = keys
    }

    var closed: Bool { out.closed }

    /// The controller's current rows: cycle 0.
    func printCurrent() throws {
        let sections = try currentSections()
        switch format {
        case .table:
            draw(sections)
        case .ndjson:
            let withRows = sections.map { s in JSON.object(s.info.merging("objects", .array(s.rows))) }
            let line: JSON = ["cycle": 0, "sections": .array(withRows)]
            out.line(printer.ndjson(line))
        }
        out.flush()
    }

    /// Everything the server wrote for one input: the controller's cycles are printed, a
    /// failed request is reported on stderr, the rest (successful responses) is not shown.
    func consume(_ messages: [JSON]) throws -> Bool {
        for message in messages {
            if case .array(let batch) = message {
                for response in batch { reportFailure(response) }
                continue
            }
            guard let method = message["method"]?.stringValue else {
                reportFailure(message)
                continue
            }
            guard case .object(var params)? = message["params"], params["controller"] == .string(Self.controller)
            else { continue }
            switch method {
            case ControllerNotifications.willChangeContent.name:
                changes = []
            case ControllerNotifications.didChangeContent.name:
                cycle += 1
                try printCycle(changes ?? [])
                changes = nil
            default:
                params["controller"] = nil
                changes?.append(.object(params))
            }
        }
        out.flush()
        return !out.closed
    }

    private func printCycle(_ changes: [JSON]) throws {
        switch format {
        case .table: draw(try currentSections())
        case .ndjson: out.line(printer.ndjson(["cycle": .integer(Int64(cycle)), "changes": .array(changes)]))
        }
    }

    private func reportFailure(_ response: JSON) {
        guard let error = response["error"] else { return }
        let failed: JSON = ["error": error, "id": response["id"] ?? .null]
        Stderr.line("fetchd watch: a request failed: \(failed.serializedString)")
    }

    private struct Section {
        var info: JSONObject
        var rows: [JSON]
    }

    /// The sections and rows the controller holds now, read as a client would.
    private func currentSections() throws -> [Section] {
        let name: JSON = .string(Self.controller)
        let infos = try call(ControllerDeclarations.sections.name, ["controller": name])["sections"]?.arrayValue ?? []
        var sections: [Section] = []
        for (i, info) in infos.enumerated() {
            var params: JSONObject = ["controller": name, "section": .integer(Int64(i))]
            if let keys { params["keys"] = .array(keys.map(JSON.string)) }
            let rows = try call(ControllerDeclarations.rows.name, .object(params))["objects"]?.arrayValue ?? []
            sections.append(Section(info: info.objectValue ?? [:], rows: rows))
        }
        return sections
    }

    private func call(_ method: String, _ params: JSON) throws -> JSON {
        switch server.call(method, params) {
        case .success(let result): return result
        case .failure(let error): throw CLIExit.fail("watch", error, code: CLIExit.requestFailed)
        }
    }

    /// The table (with a `section` column when sectioned); on a terminal it replaces the last one.
    private func draw(_ sections: [Section]) {
        var objects: [JSON] = []
        for section in sections {
            for row in section.rows {
                guard sectioned, case .object(let o) = row else {
                    objects.append(row)
                    continue
                }
                let name = section.info["name"] ?? ""
                objects.append(.object(JSONObject([("section", name)] + o.map { ($0.key, $0.value) })))
            }
        }
        let columns = (sectioned ? ["section"] : []) + printer.columns
        let table = RowPrinter(columns: columns).table(objects)
        if terminal { out.text("\u{1B}[H\u{1B}[2J") }
        out.line("cycle \(cycle): \(objects.count) rows")
        for line in table { out.line(line) }
        if !terminal { out.line("") }
    }
}

extension JSONObject {
    func merging(_ key: String, _ value: JSON) -> JSONObject {
        var copy = self
        copy[key] = value
        return copy
    }
}
