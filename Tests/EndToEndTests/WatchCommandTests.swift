import Foundation
import JSON
import Testing

/// `fetchd watch`: cycle 0 (the rows), then one NDJSON line per change cycle made through its
/// stdin (`--stdin`) or by other processes; like `tail -f` only a signal ends it (143 for SIGTERM).
@Suite struct WatchCommandTests {
    static let arguments = ["watch", "--entity", "Contact", "--sort", "age", "--keys", "name,age", "--stdin"]

    @Test func aChangeOnStdinIsOneCycleLine() throws {
        let store = try CLIStore()
        let watch = try FetchdProcess(Self.arguments + ["--store", store.path])
        defer { watch.stop() }
        #expect(
            try watch.json(line: watch.line())
                == json(
                    #"""
                    {"cycle":0,"sections":[{"name":"","indexTitle":"","numberOfObjects":3,"objects":[
                      {"id":"Contact/2","name":"Bob \"B\"","age":25},{"id":"Contact/1","name":"Ana","age":31},
                      {"id":"Contact/3","name":"Zoë","age":40}]}]}
                    """#))
        watch.write(CLIStore.insert(#"{"name":"Al","age":50}"#, id: 1) + "\n")
        #expect(
            try watch.json(line: watch.line())
                == json(
                    #"""
                    {"cycle":1,"changes":[{"type":"insert","id":"Contact/4","newIndexPath":[0,3],
                      "object":{"id":"Contact/4","name":"Al","age":50}}]}
                    """#))
        // A batch is one cycle: Ana moves to the front, Zoë goes.
        let delete = CLIStore.request(3, "context/delete", #"{"context":"main","id":"Contact/3"}"#)
        watch.write("[\(CLIStore.update("Contact/1", #"{"age":10}"#, id: 2)),\(delete)]\n")
        #expect(
            try watch.json(line: watch.line())
                == json(
                    #"""
                    {"cycle":2,"changes":[{"type":"delete","id":"Contact/3","indexPath":[0,2]},
                      {"type":"move","id":"Contact/1","indexPath":[0,1],"newIndexPath":[0,0],
                       "object":{"id":"Contact/1","name":"Ana","age":10}}]}
                    """#))
        // Any change of a row is an update (§10.3), even of a key not printed.
        watch.write(CLIStore.update("Contact/2", #"{"city":"Rome"}"#, id: 4) + "\n")
        #expect(
            try watch.json(line: watch.line())
                == json(
                    #"""
                    {"cycle":3,"changes":[{"type":"update","id":"Contact/2","indexPath":[0,1],"newIndexPath":[0,1],
                      "object":{"id":"Contact/2","name":"Bob \"B\"","age":25}}]}
                    """#))
        // A failed request changes nothing and goes to stderr.
        watch.write(CLIStore.update("Contact/2", #"{"age":"old"}"#, id: 5) + "\n")
        // Messages are handled in order: once this cycle's line is out, the two above were handled.
        watch.write(CLIStore.request(6, "context/delete", #"{"context":"main","id":"Contact/4"}"#) + "\n")
        #expect(watch.line() == #"{"cycle":4,"changes":[{"type":"delete","id":"Contact/4","indexPath":[0,2]}]}"#)
        kill(watch.process.processIdentifier, SIGTERM)
        let (rest, stderr, status) = watch.finish()
        #expect(status == 143)
        #expect(rest.isEmpty)
        #expect(stderr.contains(#""kind":"typeMismatch""#), "\(stderr)")
    }

    @Test func endOfStdinOnlyStopsTheReadingAndASaveReachesTheFile() throws {
        let store = try CLIStore()
        let watch = try FetchdProcess(Self.arguments + ["--store", store.path, "--predicate", "age < 30"])
        defer { watch.stop() }
        #expect(watch.line()?.hasPrefix(#"{"cycle":0,"#) == true)
        watch.write(CLIStore.insert(#"{"name":"Kid","age":5}"#, id: 1) + "\n")
        watch.write(CLIStore.request(2, "context/save", #"{"context":"main"}"#) + "\n")
        watch.closeInput()
        #expect(
            try watch.json(line: watch.line())
                == json(
                    #"""
                    {"cycle":1,"changes":[{"type":"insert","id":"Contact/4","newIndexPath":[0,0],
                      "object":{"id":"Contact/4","name":"Kid","age":5}}]}
                    """#))
        // Past the end of its input it still watches: another process's commit is a cycle.
        _ = try Self.plain(store.path, "UPDATE Contact SET age = ? WHERE _pk = ?", ["7", "4"])
        #expect(
            watch.line()
                == #"{"cycle":2,"changes":[{"type":"update","id":"Contact/4","indexPath":[0,0],"newIndexPath":[0,0],"#
                + #""object":{"id":"Contact/4","name":"Kid","age":7}}]}"#)
        kill(watch.process.processIdentifier, SIGTERM)
        let (rest, stderr, status) = watch.finish()
        #expect(status == 143, "\(stderr)")
        #expect(rest.isEmpty)
        let query = try FetchdProcess.run(
            [
                "query", "--store", store.path, "--entity", "Contact",
                "--predicate", "age < 30", "--keys", "name", "--format", "csv",
            ], input: "")
        #expect(query.output == "id,name\nContact/2,\"Bob \"\"B\"\"\"\nContact/4,Kid\n")
    }

    /// Without `--stdin`, stdin is never read: started with it at its end (from cron, a script
    /// or `&`) watch keeps printing other processes' commits until a signal stops it.
    @Test func withoutStdinItRunsUntilASignal() throws {
        let store = try CLIStore()
        let watch = try FetchdProcess([
            "watch", "--entity", "Contact", "--sort", "age", "--keys", "name", "--store", store.path,
        ])
        defer { watch.stop() }
        watch.closeInput()
        #expect(watch.line()?.hasPrefix(#"{"cycle":0,"#) == true)
        _ = try Self.plain(store.path, "DELETE FROM Contact WHERE _pk = ?", ["1"])
        #expect(watch.line() == #"{"cycle":1,"changes":[{"type":"delete","id":"Contact/1","indexPath":[0,1]}]}"#)
        kill(watch.process.processIdentifier, SIGINT)
        let (rest, stderr, status) = watch.finish()
        #expect(status == 130, "\(stderr)")
        #expect(rest.isEmpty)
        #expect(stderr.isEmpty)
    }

    /// Not on a terminal, each redraw is the whole table after a blank line.
    @Test func theTableIsRedrawnAfterEachCycle() throws {
        let store = try CLIStore()
        let watch = try FetchdProcess([
            "watch", "--store", store.path, "--entity", "Contact", "--section", "city", "--predicate",
            "city != nil", "--keys", "name", "--format", "table", "--stdin",
        ])
        defer { watch.stop() }
        watch.write(CLIStore.insert(#"{"name":"Al","age":50,"city":"Oslo"}"#, id: 1) + "\n")
        watch.closeInput()
        var lines: [String] = []
        while lines.count < 12, let line = watch.line() { lines.append(line) }
        kill(watch.process.processIdentifier, SIGTERM)
        let (rest, stderr, status) = watch.finish()
        #expect(status == 143, "\(stderr)")
        let output = lines.map { $0 + "\n" }.joined() + rest
        #expect(
            output == """
                cycle 0: 2 rows
                section   id         name
                --------  ---------  ----
                Lyon, FR  Contact/1  Ana
                Oslo      Contact/3  Zoë

                cycle 1: 3 rows
                section   id         name
                --------  ---------  ----
                Lyon, FR  Contact/1  Ana
                Oslo      Contact/3  Zoë
                Oslo      Contact/4  Al


                """)
    }

    @Test func aBadPredicateExits64BeforeWatching() throws {
        let store = try CLIStore()
        let (output, stderr, status) = try FetchdProcess.run(
            Self.arguments + ["--store", store.path, "--predicate", "name ==="], input: "")
        #expect(status == 64)
        #expect(output.isEmpty)
        #expect(stderr.contains("fetchd watch: Cannot parse predicate"), "\(stderr)")
    }
}

/// A JSON text written over several lines in a test.
func json(_ text: String) throws -> JSON { try JSON.parse(Array(text.utf8)) }

extension FetchdProcess {
    /// One stdout line; a fetchd that writes none within `timeout` seconds is killed (the read
    /// then ends) and the test fails.
    func line(timeout: Double = 30) -> String? {
        final class Box: @unchecked Sendable { var line: String? }
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            box.line = self.readLine()
            done.signal()
        }
        if done.wait(timeout: .now() + timeout) == .timedOut {
            Issue.record("no line from fetchd within \(timeout) s")
            kill(process.processIdentifier, SIGKILL)
            done.wait()
        }
        return box.line
    }

    func json(line: String?) throws -> JSON? {
        try line.map { try JSON.parse(Array($0.utf8)) }
    }

    /// `shutdown` and `exit` on stdin: fetchd exits 0 once every message before them is handled
    /// (watch keeps running past the end of its input, so only these or a signal end it).
    func endSession() {
        write(
            #"{"jsonrpc":"2.0","method":"shutdown","id":"end"}"# + "\n" + #"{"jsonrpc":"2.0","method":"exit"}"# + "\n")
        closeInput()
    }

    /// Kills fetchd if it still runs and reaps it: for `defer`, in every outcome.
    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        closeInput()
        process.waitUntilExit()
    }
}
