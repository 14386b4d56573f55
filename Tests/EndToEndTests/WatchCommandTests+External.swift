import Foundation
import JSON
import Testing

/// `fetchd watch` as `tail -f` for a query: what other processes commit to the file (a second
/// fetchd, a plain SQLite client, protocol.md §5) is printed as one cycle line, like a change
/// made on its stdin.
extension WatchCommandTests {
    /// `fetchd exec` on the same file; returns the ids the file's inserts were given.
    static func exec(_ path: String, _ lines: [String]) throws -> [String] {
        let run = try FetchdProcess.run(["exec", "-", "--store", path], input: lines.joined(separator: "\n") + "\n")
        #expect(run.status == 0, "\(run.stderr)")
        return try run.output.split(separator: "\n").compactMap {
            try JSON.parse(Array($0.utf8))["result"]?["object"]?["id"]?.stringValue
        }
    }

    /// One statement by python3's `sqlite3` (no fetchd code); the new row's number for an insert.
    static func plain(_ path: String, _ sql: String, _ args: [String] = []) throws -> Int64 {
        try ExternalWritersTests.plainWrite(path, sql, args).1
    }

    @Test(arguments: ["auto", "poll"])
    func otherProcessesCommitsAreCycleLines(mode: String) throws {
        let store = try CLIStore()
        let watch = try FetchdProcess(Self.arguments + ["--store", store.path, "--watch", mode])
        defer { watch.stop() }
        #expect(
            watch.line()?.hasPrefix(#"{"cycle":0,"sections":[{"name":"","indexTitle":"","numberOfObjects":3,"#) == true)

        // A second fetchd inserts and saves: one cycle, the row at its sorted place.
        let ids = try Self.exec(
            store.path,
            [
                CLIStore.insert(#"{"name":"Eve","age":35}"#, id: 1),
                CLIStore.request(2, "context/save", #"{"context":"main"}"#),
            ])
        let eve = try #require(ids.first)
        #expect(
            try watch.json(line: watch.line())
                == json(
                    #"""
                    {"cycle":1,"changes":[{"type":"insert","id":"\#(eve)","newIndexPath":[0,2],
                      "object":{"id":"\#(eve)","name":"Eve","age":35}}]}
                    """#))

        // A plain SQLite client moves Bob last, then inserts a row (`_pk` left out).
        _ = try Self.plain(store.path, "UPDATE Contact SET age = ? WHERE _pk = ?", ["70", "2"])
        #expect(
            try watch.json(line: watch.line())
                == json(
                    #"""
                    {"cycle":2,"changes":[{"type":"move","id":"Contact/2","indexPath":[0,0],"newIndexPath":[0,3],
                      "object":{"id":"Contact/2","name":"Bob \"B\"","age":70}}]}
                    """#))
        let row = try Self.plain(store.path, "INSERT INTO Contact (name, age) VALUES (?, ?)", ["Kim", "1"])
        #expect(
            try watch.json(line: watch.line())
                == json(
                    #"""
                    {"cycle":3,"changes":[{"type":"insert","id":"Contact/\#(row)","newIndexPath":[0,0],
                      "object":{"id":"Contact/\#(row)","name":"Kim","age":1}}]}
                    """#))

        // Stdin still works between them, and SIGTERM ends a watch waiting on the file too.
        watch.write(CLIStore.request(1, "context/delete", #"{"context":"main","id":"Contact/1"}"#) + "\n")
        #expect(watch.line() == #"{"cycle":4,"changes":[{"type":"delete","id":"Contact/1","indexPath":[0,1]}]}"#)
        watch.endSession()
        let (rest, stderr, status) = watch.finish()
        #expect(status == 0, "\(stderr)")
        #expect(rest.isEmpty)
    }

    /// `--watch off`: a commit elsewhere shows only once stdin asks (`store/checkExternalChanges`);
    /// a message before that is handled without merging it. The order of lines proves it, no
    /// waiting involved.
    @Test func watchOffMergesOnlyWhenStdinAsks() throws {
        let store = try CLIStore()
        let watch = try FetchdProcess(Self.arguments + ["--store", store.path, "--watch", "off"])
        defer { watch.stop() }
        #expect(watch.line()?.hasPrefix(#"{"cycle":0,"#) == true)
        let row = try Self.plain(store.path, "INSERT INTO Contact (name, age) VALUES (?, ?)", ["Kim", "1"])
        watch.write(CLIStore.insert(#"{"name":"Al","age":50}"#, id: 1) + "\n")
        // Al's number comes from a block reserved above Kim's: read it, then check the line.
        let line = try #require(try watch.json(line: watch.line()))
        let al = try #require(line["changes"]?.arrayValue?.first?["id"]?.stringValue)
        #expect(al != "Contact/\(row)")
        #expect(
            try line
                == json(
                    #"""
                    {"cycle":1,"changes":[{"type":"insert","id":"\#(al)","newIndexPath":[0,3],
                      "object":{"id":"\#(al)","name":"Al","age":50}}]}
                    """#))
        watch.write(CLIStore.request(2, "store/checkExternalChanges", "{}") + "\n")
        #expect(
            try watch.json(line: watch.line())
                == json(
                    #"""
                    {"cycle":2,"changes":[{"type":"insert","id":"Contact/\#(row)","newIndexPath":[0,0],
                      "object":{"id":"Contact/\#(row)","name":"Kim","age":1}}]}
                    """#))
        watch.endSession()
        let (rest, stderr, status) = watch.finish()
        #expect(status == 0, "\(stderr)")
        #expect(rest.isEmpty)
    }

    /// `--format table` off a terminal: one frame per cycle, whatever made it; each frame's rows
    /// are the controller's, which after a commit are what `fetchd query` reads from the file.
    @Test func eachTableFrameHoldsTheControllersRows() throws {
        let store = try CLIStore()
        let fetch = ["--entity", "Contact", "--sort", "age", "--keys", "name,age", "--predicate", "age < 60"]
        let watch = try FetchdProcess(
            ["watch", "--store", store.path, "--format", "table", "--watch", "poll", "--stdin"] + fetch)
        defer { watch.stop() }
        func frame() -> [String] {
            var lines: [String] = []
            while let line = watch.line(), !line.isEmpty { lines.append(line) }
            return lines
        }
        func query() throws -> [String] {
            let run = try FetchdProcess.run(["query", "--store", store.path, "--format", "table"] + fetch, input: "")
            #expect(run.status == 0, "\(run.stderr)")
            return run.output.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        }
        var expected = try query()
        #expect(frame() == ["cycle 0: 3 rows"] + expected)
        _ = try Self.plain(store.path, "UPDATE Contact SET age = ? WHERE _pk = ?", ["99", "3"])
        expected = try query()
        #expect(frame() == ["cycle 1: 2 rows"] + expected)
        _ = try Self.exec(
            store.path,
            [
                CLIStore.insert(#"{"name":"Eve","age":35}"#, id: 1),
                CLIStore.request(2, "context/save", #"{"context":"main"}"#),
            ])
        expected = try query()
        #expect(expected.count == 5)
        #expect(frame() == ["cycle 2: 3 rows"] + expected)
        // A change on stdin, saved: the frame after the save's cycle is the file's rows again.
        watch.write(CLIStore.update("Contact/1", #"{"age":5}"#, id: 1) + "\n")
        let updated = frame()
        watch.write(CLIStore.request(2, "context/save", #"{"context":"main"}"#) + "\n")
        watch.endSession()
        let (rest, stderr, status) = watch.finish()
        #expect(status == 0, "\(stderr)")
        #expect(rest.isEmpty)
        #expect(updated == ["cycle 3: 3 rows"] + (try query()))
    }
}
