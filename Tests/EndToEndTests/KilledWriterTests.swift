import Foundation
import JSON
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A plain SQLite writer killed with SIGKILL inside an open transaction (protocol.md §5,
/// "History": a rolled-back write is never recorded): the watching fetchd merges nothing of
/// it, stays responsive while the writer holds the lock and after, and later commits still
/// arrive exactly once.
@Suite(.serialized) struct KilledWriterTests {
    /// Inserts rows inside a transaction it never ends, says so, then waits to be killed.
    static let stuckWriter = """
        import sqlite3, sys, time
        db = sqlite3.connect(sys.argv[1], timeout=5, isolation_level=None)
        db.execute('BEGIN IMMEDIATE')
        for i in range(3):
            db.execute('INSERT INTO Note (title, rank) VALUES (?, ?)', ('ghost%d' % i, i))
        print('ready', flush=True)
        time.sleep(60)
        """

    @Test func aWriterKilledMidTransactionLeavesNothingAndLaterCommitsArriveOnce() throws {
        let dir = TempDir()
        let path = dir.file("shared.sqlite")
        let modelFile = dir.file("model.json")
        try ExternalWritersTests.model.write(toFile: modelFile, atomically: true, encoding: .utf8)
        let a = try ExternalWritersTests.Client(["--store", path, "--model", modelFile, "--watch", "auto"])
        defer { a.stop() }
        _ = try a.request(
            "controller/create", #"{"context":"main","name":"notes","request":\#(ExternalWritersTests.request)}"#)
        let (before, _) = try ExternalWritersTests.plainWrite(
            path, "INSERT INTO Note (title, rank) VALUES (?, ?)", ["first", "1"])
        _ = try a.request("server/ping")
        a.pending.removeAll()

        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        writer.arguments = ["python3", "-c", Self.stuckWriter, path]
        let out = Pipe()
        writer.standardOutput = out
        try writer.run()
        defer {
            if writer.isRunning { kill(writer.processIdentifier, SIGKILL) }
            writer.waitUntilExit()
        }
        var said = ""
        while !said.contains("ready") {
            let data = out.fileHandleForReading.availableData
            if data.isEmpty { break }
            said += String(decoding: data, as: UTF8.self)
        }
        #expect(said.contains("ready"))

        // The writer holds the write lock: fetchd still answers reads and checks.
        _ = try a.request("server/ping")
        #expect(try a.request("store/checkExternalChanges")["merged"] == 0)

        kill(writer.processIdentifier, SIGKILL)
        writer.waitUntilExit()
        #expect(writer.terminationReason == .uncaughtSignal)

        _ = try a.request("server/ping")
        #expect(try a.request("store/checkExternalChanges")["merged"] == 0)
        let count = try a.request(
            "context/count", #"{"context":"main","request":{"entity":"Note"}}"#)["count"]
        #expect(count == 1)
        let token = try a.token()
        #expect(token == before)

        // Later commits, a plain client's and fetchd's own, go through and arrive once.
        let (after, _) = try ExternalWritersTests.plainWrite(
            path, "INSERT INTO Note (title, rank) VALUES (?, ?)", ["second", "2"])
        #expect(after == before + 1)
        _ = try a.request("context/insert", #"{"context":"main","entity":"Note","values":{"title":"own"}}"#)
        _ = try a.request("context/save", #"{"context":"main"}"#)
        _ = try a.request("store/checkExternalChanges")
        var announced: [JSON] = []
        var inserted: [String] = []
        for n in a.pending {
            if n.method == "store/didChangeExternally" {
                announced += (n.params["transactions"]?.arrayValue ?? []).compactMap { $0["token"] }
            }
            if n.method == "controller/didChangeObject", n.params["type"] == "insert",
                let title = n.params["object"]?["title"]?.stringValue
            {
                inserted.append(title)
            }
        }
        #expect(announced == [.integer(after)])
        #expect(inserted.filter { $0.hasPrefix("ghost") }.isEmpty)
        #expect(inserted.contains("second") && inserted.contains("own"))
        let titles = try a.request(
            "context/fetch", #"{"context":"main","request":\#(ExternalWritersTests.request)}"#)["objects"]?
            .arrayValue?.compactMap { $0["title"]?.stringValue }
        #expect(Set(titles ?? []) == ["first", "second", "own"])
        a.process.closeInput()
        #expect(a.process.finish().status == 0)
    }
}
