import Foundation

/// fetchd end to end with a Swift client over its stdio pipe: the same `[context/update,
/// context/save]` batch as the Python driver, timed from writing it to having read its
/// response (every notification comes before it), beside the pipe and commit floors of the
/// same run. The client only frames lines in the timed part, as a native frontend would before
/// handing them on; each answer is parsed and checked after the clock stops.
final class FetchdPipeClient {
    enum Failure: Error, CustomStringConvertible {
        case fetchd(String)
        var description: String { if case .fetchd(let m) = self { "fetchd: \(m)" } else { "" } }
    }

    static let model =
        #"{"entities":[{"name":"Msg","attributes":{"ts":{"type":"integer","indexed":true},"sender":{"type":"string"},"body":{"type":"string"}}}]}"#
    /// Rows per `store/batchInsert` while loading (each request is its own transaction).
    static let loadChunk = 50_000

    private let child = Process()
    private let toChild = Pipe()
    private let fromChild = Pipe()
    private var pending: [UInt8] = []
    private var readBuffer = [UInt8](repeating: 0, count: 1 << 16)
    private var nextID = 1

    init(fetchd: String, stderrPath: String) throws {
        child.executableURL = URL(fileURLWithPath: fetchd)
        child.standardInput = toChild
        child.standardOutput = fromChild
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        child.standardError = FileHandle(forWritingAtPath: stderrPath)
        try child.run()
        // The child's ends, closed here: a fetchd that exits is then an end of input (not a
        // read that waits forever) and a failed write (not a signal).
        try toChild.fileHandleForReading.close()
        try fromChild.fileHandleForWriting.close()
    }

    /// Ends fetchd politely (EOF on its input) and waits for it.
    func close() {
        try? toChild.fileHandleForWriting.close()
        child.waitUntilExit()
    }

    // MARK: The measured figures

    /// `server/ping` in a one-element batch, as the Python driver's floor: µs per round trip.
    func pingRoundTrips(_ count: Int) throws -> [Double] {
        try (0..<count).map { _ in
            let id = takeID()
            let line = #"[{"jsonrpc":"2.0","id":\#(id),"method":"server/ping"}]"#
            let (elapsed, lines) = timedBatch(line)
            try check(lines, answering: [id])
            return elapsed
        }
    }

    /// Loads `n` workload rows, opens a controller sorted by `ts`, then times `iterations`
    /// single-row changes. Returns the samples and how many changes were notified.
    func changeRoundTrips(store: String, rows n: Int, iterations: Int) throws -> (samples: [Double], notified: Int) {
        _ = try call("store/open", #"{"path":\#(json(store)),"model":\#(Self.model)}"#)
        let ids = try load(rows: n)
        let created = try call(
            "controller/create",
            #"{"context":"main","name":"bench","request":{"entity":"Msg","sortDescriptors":[{"key":"ts"}]}}"#)
        guard (created as? [String: Any])?["count"] as? Int == n else {
            throw Failure.fetchd("controller/create answered \(created), expected \(n) rows")
        }
        var changes = Workload.Changes(rowCount: n)
        var samples: [Double] = []
        var notified = 0
        for _ in 0..<iterations {
            let change = changes.next()
            let update = takeID()
            let save = takeID()
            let line =
                #"[{"jsonrpc":"2.0","id":\#(update),"method":"context/update","params":{"context":"main","id":\#(json(ids[Int(change.id) - 1])),"values":{"ts":\#(change.ts)}}},"#
                + #"{"jsonrpc":"2.0","id":\#(save),"method":"context/save","params":{"context":"main"}}]"#
            let (elapsed, lines) = timedBatch(line)
            let notes = try check(lines, answering: [update, save])
            if notes.contains(where: { $0["method"] as? String == "controller/didChangeContent" }) { notified += 1 }
            samples.append(elapsed)
        }
        return (samples, notified)
    }

    // MARK: Requests

    private func load(rows n: Int) throws -> [String] {
        var ids: [String] = []
        ids.reserveCapacity(n)
        var rows = Workload.rows(count: n).makeIterator()
        var remaining = n
        while remaining > 0 {
            let chunk = min(Self.loadChunk, remaining)
            var values: [String] = []
            values.reserveCapacity(chunk)
            for _ in 0..<chunk {
                guard let row = rows.next() else { break }
                values.append("[\(row.ts),\(json(row.sender)),\(json(row.body))]")
            }
            let result = try call(
                "store/batchInsert",
                #"{"entity":"Msg","keys":["ts","sender","body"],"returnIds":true,"rows":[\#(values.joined(separator: ","))]}"#
            )
            guard let more = (result as? [String: Any])?["ids"] as? [String], more.count == chunk else {
                throw Failure.fetchd("store/batchInsert answered without \(chunk) ids")
            }
            ids += more
            remaining -= chunk
        }
        return ids
    }

    /// One request outside the clock: its result, notifications before it skipped.
    private func call(_ method: String, _ params: String) throws -> Any {
        let id = takeID()
        send(#"{"jsonrpc":"2.0","id":\#(id),"method":\#(json(method)),"params":\#(params)}"#)
        while true {
            let object = try parse(readLine())
            guard let message = object as? [String: Any], message["id"] as? Int == id else { continue }
            if let error = message["error"] { throw Failure.fetchd("\(method): \(error)") }
            return message["result"] ?? NSNull()
        }
    }

    /// Writes a batch and reads lines up to its response (the one line that is a JSON array).
    private func timedBatch(_ line: String) -> (Double, [[UInt8]]) {
        var lines: [[UInt8]] = []
        let elapsed = Clock.measure {
            send(line)
            while true {
                let next = readLine()
                lines.append(next)
                // The response, or the end of fetchd's output (`check` reports it).
                if next.first == UInt8(ascii: "[") || next.isEmpty { break }
            }
        }
        return (elapsed, lines)
    }

    /// After the clock: every line parses, the batch answered each id without an error.
    /// Returns the notifications.
    @discardableResult
    private func check(_ lines: [[UInt8]], answering ids: [Int]) throws -> [[String: Any]] {
        guard let last = lines.last, let answers = try parse(last) as? [[String: Any]] else {
            throw Failure.fetchd("no batch response")
        }
        let answered = answers.compactMap { $0["id"] as? Int }.sorted()
        if answered != ids.sorted() || answers.contains(where: { $0["error"] != nil }) {
            throw Failure.fetchd("batch answered \(answers)")
        }
        return try lines.dropLast().map { line in
            guard let note = try parse(line) as? [String: Any], note["method"] is String else {
                throw Failure.fetchd("unexpected line \(String(decoding: line, as: UTF8.self))")
            }
            return note
        }
    }

    // MARK: Framing (newline-delimited JSON)

    private func send(_ line: String) {
        var bytes = Array(line.utf8)
        bytes.append(10)
        let fd = toChild.fileHandleForWriting.fileDescriptor
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + sent, $0.count - sent) }
            if n <= 0 { break }
            sent += n
        }
    }

    private func readLine() -> [UInt8] {
        let fd = fromChild.fileHandleForReading.fileDescriptor
        var scanned = 0
        while true {
            if let end = pending[scanned...].firstIndex(of: 10) {
                let line = Array(pending[..<end])
                pending.removeSubrange(...end)
                return line
            }
            scanned = pending.count
            let got = readBuffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if got <= 0 {
                let line = pending
                pending = []
                return line
            }
            pending += readBuffer[..<got]
        }
    }

    private func parse(_ line: [UInt8]) throws -> Any {
        guard !line.isEmpty else { throw Failure.fetchd("closed its output (see its stderr)") }
        return try JSONSerialization.jsonObject(with: Data(line), options: [.fragmentsAllowed])
    }

    private func takeID() -> Int {
        defer { nextID += 1 }
        return nextID
    }

    private func json(_ s: String) -> String {
        let data = try? JSONSerialization.data(withJSONObject: s, options: [.fragmentsAllowed])
        return data.map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
    }
}
