import Foundation
import JSON
import TestSupport
import Testing

/// Other processes on one file (protocol.md §5): a watching fetchd (A) with a controller, a
/// second fetchd (B) and a python3 `sqlite3` script writing in turn. After each write A
/// reaches a quiescent point (its next message, or `store/checkExternalChanges`); then the
/// mirror built from A's notifications equals a fresh `context/fetch`, and every external
/// transaction has been announced exactly once. FETCHD_EXTERNAL_CYCLES runs it longer.
@Suite(.serialized) struct ExternalWritersTests {
    static let model =
        #"{"entities":[{"name":"Note","attributes":{"title":{"type":"string"},"#
        + #""rank":{"type":"integer","default":0}}}]}"#
    static let request = #"{"entity":"Note","sortDescriptors":[{"key":"rank"},{"key":"title"}]}"#

    /// Runs one statement as a plain SQLite client and prints the newest history token (and the
    /// new row's number for an insert).
    static let writer = """
        import sqlite3, sys
        db = sqlite3.connect(sys.argv[1], timeout=5)
        cur = db.execute(sys.argv[2], [int(a) if a.lstrip('-').isdigit() else a for a in sys.argv[3:]])
        row = cur.lastrowid
        db.commit()
        print(db.execute('SELECT max(seq) FROM _fetchd_history').fetchone()[0], row)
        """

    final class Client {
        let process: FetchdProcess
        var nextID = 0
        var pending: [(method: String, params: JSON)] = []
        init(_ arguments: [String]) throws { process = try FetchdProcess(arguments) }

        func request(_ method: String, _ params: String = "{}") throws -> JSON {
            nextID += 1
            process.write(#"{"jsonrpc":"2.0","method":"\#(method)","params":\#(params),"id":\#(nextID)}"# + "\n")
            while true {
                guard let line = process.readLine() else { throw TableMirror.Failure.bad("fetchd closed its output") }
                let message = try JSON.parse(line)
                if let method = message["method"]?.stringValue {
                    pending.append((method, message["params"] ?? .null))
                    continue
                }
                if let error = message["error"] { throw TableMirror.Failure.bad("\(method) failed: \(error)") }
                return message["result"] ?? .null
            }
        }

        /// The newest history token: right after this client's save, that save's.
        func token() throws -> Int64 {
            guard case .integer(let t)? = try request("store/historyToken")["token"] else { return -1 }
            return t
        }

        func stop() {
            if process.process.isRunning { process.process.terminate() }
            process.process.waitUntilExit()
        }
    }

    /// Runs the python writer to completion; (token, rowid).
    static func plainWrite(_ path: String, _ sql: String, _ args: [String]) throws -> (Int64, Int64) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-c", writer, path, sql] + args
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        defer {
            if p.isRunning { p.terminate() }
            p.waitUntilExit()
        }
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        let parts = text.split(separator: " ").map { Int64($0.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0 }
        guard p.terminationStatus == 0, parts.count == 2 else { throw TableMirror.Failure.bad("writer: \(text)") }
        return (parts[0], parts[1])
    }

    /// A plain client of the shared store (no fetchd code): each write commits and answers
    /// the newest history token (and an insert's new row number).
    struct PlainClient {
        var insert: (_ title: String, _ rank: String) throws -> (token: Int64, row: Int64)
        var updateRank: (_ rank: String, _ pk: Int64) throws -> Int64
        var delete: (_ pk: Int64) throws -> Int64
    }

    @Test func twoFetchdsAndAPlainClientOnOneFile() throws {
        let dir = TempDir()
        let path = dir.file("shared.sqlite")
        let plain = PlainClient(
            insert: { try Self.plainWrite(path, "INSERT INTO Note (title, rank) VALUES (?, ?)", [$0, $1]) },
            updateRank: { try Self.plainWrite(path, "UPDATE Note SET rank = ? WHERE _pk = ?", [$0, "\($1)"]).0 },
            delete: { try Self.plainWrite(path, "DELETE FROM Note WHERE _pk = ?", ["\($0)"]).0 })
        try Self.oracle(dir: dir, store: path, watch: "poll", plain: plain)
    }

    /// Two fetchd processes and a plain client take turns writing to `store`; A (watching
    /// with `watch`) keeps a controller whose mirror must equal a fresh fetch after each
    /// write, and must announce every external transaction exactly once, in order.
    static func oracle(dir: TempDir, store: String, watch: String, plain: PlainClient) throws {
        let modelFile = dir.file("model.json")
        try Self.model.write(toFile: modelFile, atomically: true, encoding: .utf8)
        let a = try Client(["--store", store, "--model", modelFile, "--watch", watch])
        defer { a.stop() }
        let b = try Client(["--store", store, "--model", modelFile, "--watch", "off"])
        defer { b.stop() }

        _ = try a.request("controller/create", #"{"context":"main","name":"notes","request":\#(Self.request)}"#)
        var mirror = TableMirror(sections: [.init(name: "", rows: [])])
        var seeded = Seeded(seed: 7)
        var live: [Int64] = []
        var expected: [Int64] = []
        var announced: [Int64] = []
        // The newest token any write made: a write that changes nothing records no row.
        var newest: Int64 = 0
        func wrote(_ token: Int64, external: Bool = true) {
            guard token > newest else { return }
            newest = token
            if external { expected.append(token) }
        }
        let cycles = Int(ProcessInfo.processInfo.environment["FETCHD_EXTERNAL_CYCLES"] ?? "") ?? 24
        for cycle in 0..<cycles {
            let title = "t\(seeded.int(5))"
            let rank = "\(seeded.int(6))"
            let roll = live.isEmpty ? 0 : seeded.int(6)
            let target = live.isEmpty ? 0 : live[seeded.int(live.count)]
            switch (roll, seeded.int(3)) {
            case (0..<2, 0):
                // A's own save: notified as a request's cycle, never as external.
                let o = try a.request(
                    "context/insert",
                    #"{"context":"main","entity":"Note","values":{"title":"\#(title)"}}"#)
                _ = try a.request("context/save", #"{"context":"main"}"#)
                live.append(Int64(o["object"]?["id"]?.stringValue?.split(separator: "/").last ?? "0") ?? 0)
                wrote(try a.token(), external: false)
            case (0..<2, 1):
                let values = #"{"title":"\#(title)","rank":\#(rank)}"#
                let o = try b.request("context/insert", #"{"context":"main","entity":"Note","values":\#(values)}"#)
                _ = try b.request("context/save", #"{"context":"main"}"#)
                live.append(Int64(o["object"]?["id"]?.stringValue?.split(separator: "/").last ?? "0") ?? 0)
                wrote(try b.token())
            case (0..<2, _):
                let (token, row) = try plain.insert(title, rank)
                live.append(row)
                wrote(token)
            case (2..<4, _):
                wrote(try plain.updateRank(rank, target))
            case (4, _):
                _ = try b.request(
                    "context/update",
                    #"{"context":"main","id":"Note/\#(target)","values":{"title":"\#(title)"}}"#)
                _ = try b.request("context/save", #"{"context":"main"}"#)
                wrote(try b.token())
            default:
                let token = try plain.delete(target)
                live.removeAll { $0 == target }
                wrote(token)
            }
            // A quiescent point: the watcher merges before reading its next message; every
            // third cycle asks explicitly instead (nothing is left to merge when watching).
            _ = try a.request(cycle % 3 == 0 ? "store/checkExternalChanges" : "server/ping")
            var batch: [(method: String, params: JSON)] = []
            for n in a.pending {
                switch n.method {
                case "store/didChangeExternally":
                    for t in n.params["transactions"]?.arrayValue ?? [] {
                        if case .integer(let token)? = t["token"] { announced.append(token) }
                    }
                case "controller/willChangeContent": batch = []
                case "controller/didChangeContent": try mirror.apply(batch)
                default: batch.append(n)
                }
            }
            a.pending.removeAll()
            let fresh = try a.request("context/fetch", #"{"context":"main","request":\#(Self.request)}"#)["objects"]
            #expect(mirror.sections.flatMap(\.rows) == fresh?.arrayValue ?? [], "cycle \(cycle)")
            #expect(announced == expected, "cycle \(cycle): every external transaction announced once, in order")
            if announced != expected { return }
        }
        #expect(expected.count > cycles / 3)
        a.process.closeInput()
        b.process.closeInput()
        #expect(a.process.finish().status == 0)
        #expect(b.process.finish().status == 0)
    }
}
