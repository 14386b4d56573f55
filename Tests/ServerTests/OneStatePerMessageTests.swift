import JSON
import JSONRPC
import SQLite
import Server
import TestSupport
import Testing

struct SQLParams: PlainParams {
    static let sql = Param<String>.required("sql", .string)
    static let params = ParamSpec.list(sql)
    let sql: String
    init(params p: ParamReader) throws { sql = try p[Self.sql] }
}

/// A plain client's commit at a known point inside a message (protocol.md §5, "One state per
/// message"): a test method that runs SQL on a connection of its own, as another process would.
enum ElsewhereDeclarations {
    static let commit = MethodDeclaration<SQLParams, EmptyResult>(
        "test/commitElsewhere", "Commits SQL from another connection.", errors: [.invalidParams])
}

@Suite struct OneStatePerMessageTests {
    static let model: JSON = [
        "entities": [["name": "Note", "attributes": ["title": ["type": "string"], "rank": ["type": "integer"]]]]
    ]

    final class Fixture {
        let dir = TempDir()
        let harness: Harness
        let plain: Connection
        var nextID: Int64 = 10

        init(watch: WatchMode) throws {
            let path = dir.file("s.sqlite")
            let server = Server(configuration: .init(watch: watch))
            plain = try Connection(path: path)
            try plain.execute("PRAGMA busy_timeout=5000")
            server.methods.add([
                ElsewhereDeclarations.commit.handle { [plain] p in
                    try? plain.execute(p.sql)
                    return EmptyResult()
                }
            ])
            harness = Harness(.ndjson, server: server)
            _ = send(("store/open", ["path": .string(path), "model": OneStatePerMessageTests.model]))
            for (title, rank) in [("a", 1), ("b", 2), ("c", 3)] {
                _ = send(
                    (
                        "context/insert",
                        [
                            "context": "main", "entity": "Note",
                            "values": ["title": .string(title), "rank": .integer(Int64(rank))],
                        ]
                    ))
            }
            _ = send(("context/save", ["context": "main"]))
            _ = send(
                (
                    "controller/create",
                    [
                        "context": "main", "name": "notes",
                        "request": ["entity": "Note", "sortDescriptors": [["key": "rank"]]],
                    ]
                ))
        }

        /// One message: one request, or a batch of several.
        func send(_ calls: (String, JSON)...) -> [JSON] {
            let bodies = calls.map { call -> JSON in
                nextID += 1
                return ["jsonrpc": "2.0", "method": .string(call.0), "params": call.1, "id": .integer(nextID)]
            }
            let text = bodies.count == 1 ? bodies[0].description : JSON.array(bodies).description
            return harness.send([text])
        }

        static let fetch: (String, JSON) = (
            "context/fetch", ["context": "main", "request": ["entity": "Note", "sortDescriptors": [["key": "rank"]]]]
        )
        static let rows: (String, JSON) = ("controller/rows", ["controller": "notes", "section": 0])
        static func elsewhere(_ sql: String) -> (String, JSON) { ("test/commitElsewhere", ["sql": .string(sql)]) }
    }

    /// The titles of a fetch's or rows' result, in order.
    static func titles(_ answer: JSON?) -> [String] {
        (answer?["result"]?["objects"]?.arrayValue ?? []).map { $0["title"]?.stringValue ?? "?" }
    }

    /// The responses of a message, by id order (a batch answers as an array).
    static func responses(_ out: [JSON]) -> [JSON] {
        out.flatMap { $0.arrayValue ?? [$0] }.filter { $0["method"] == nil }
    }

    static func methods(_ out: [JSON]) -> [String] { out.compactMap { $0["method"]?.stringValue } }

    // `.auto` watches the file with inotify: a message's snapshot is kept for the next one
    // while the watch saw no write.
    @Test(arguments: [WatchMode.off, .poll, .auto])
    func aCommitInsideAMessageShowsInNoneOfItsReads(watch: WatchMode) throws {
        let f = try Fixture(watch: watch)
        let out = f.send(
            Fixture.fetch, Fixture.rows,
            Fixture.elsewhere(
                "UPDATE \"Note\" SET rank = 9 WHERE title = 'a'; INSERT INTO \"Note\" (title, rank) VALUES ('d', 0)"),
            Fixture.fetch, Fixture.rows)
        let answers = Self.responses(out)
        #expect(answers.count == 5)
        for i in [0, 1, 3, 4] { #expect(Self.titles(answers[i]) == ["a", "b", "c"]) }
        #expect(Self.methods(out).isEmpty)
    }

    @Test func unwatchedTheCommitWaitsForCheckExternalChangesAndEditsStayExact() throws {
        let f = try Fixture(watch: .off)
        _ = f.send(Fixture.elsewhere("UPDATE \"Note\" SET rank = 9 WHERE title = 'a'"))
        // An edit of the object the commit changed, before it is merged: one row each, as merged.
        let edit = f.send(("context/update", ["context": "main", "id": "Note/2", "values": ["rank": 5]]))
        #expect(
            Self.methods(edit) == [
                "controller/willChangeContent", "controller/didChangeObject", "controller/didChangeContent",
            ])
        let answers = Self.responses(f.send(Fixture.rows, Fixture.fetch))
        #expect(Self.titles(answers[0]) == ["a", "c", "b"])
        #expect(Self.titles(answers[1]) == ["a", "c", "b"])
        let merge = f.send(("store/checkExternalChanges", [:]), Fixture.rows, Fixture.fetch)
        #expect(Self.methods(merge).contains("controller/didChangeObject"))
        #expect(Self.methods(merge).last == "store/didChangeExternally")
        let merged = Self.responses(merge)
        #expect(merged[0]["result"]?["merged"] == 1)
        #expect(Self.titles(merged[1]) == ["c", "b", "a"])
        #expect(Self.titles(merged[2]) == ["c", "b", "a"])
    }

    @Test func aSaveMergesWhatWasCommittedBeforeItFirst() throws {
        let f = try Fixture(watch: .off)
        _ = f.send(Fixture.elsewhere("DELETE FROM \"Note\" WHERE title = 'c'"))
        _ = f.send(("context/update", ["context": "main", "id": "Note/1", "values": ["title": "A"]]))
        let save = f.send(("context/save", ["context": "main"]))
        let methods = Self.methods(save)
        // The external cycle and its announcement, then the answer (the saved title shows already).
        #expect(
            methods == [
                "controller/willChangeContent", "controller/didChangeObject", "controller/didChangeContent",
                "store/didChangeExternally",
            ])
        #expect(Self.responses(save).first?["result"]?["updated"] == 1)
        let after = Self.responses(f.send(Fixture.rows, Fixture.fetch, ("store/checkExternalChanges", [:])))
        #expect(Self.titles(after[0]) == ["A", "b"])
        #expect(Self.titles(after[1]) == ["A", "b"])
        #expect(after[2]["result"]?["merged"] == 0)
    }

    @Test(arguments: [WatchMode.poll, .auto])
    func watchedTheCommitIsMergedBeforeTheNextMessage(watch: WatchMode) throws {
        let f = try Fixture(watch: watch)
        _ = f.send(Fixture.elsewhere("UPDATE \"Note\" SET rank = 9 WHERE title = 'a'"))
        let next = f.send(Fixture.rows)
        #expect(Self.methods(next).first == "controller/willChangeContent")
        #expect(Self.methods(next).last == "store/didChangeExternally")
        #expect(Self.titles(Self.responses(next).first) == ["b", "c", "a"])
    }

    /// Between two messages, with no idle check between them (a client sending back to back):
    /// the snapshot `.auto` keeps from one message to the next gives way to the commit, which
    /// the watch reported, and so does the one a save ended with.
    @Test(arguments: [WatchMode.poll, .auto])
    func aCommitBetweenTwoMessagesIsInTheSecond(watch: WatchMode) throws {
        let f = try Fixture(watch: watch)
        for (rank, title) in [(9, "a"), (8, "b")] {
            _ = f.send(Fixture.rows)
            _ = f.send(Fixture.rows)
            try f.plain.execute("UPDATE \"Note\" SET rank = \(rank) WHERE title = '\(title)'")
            let next = f.send(Fixture.rows)
            #expect(Self.methods(next).last == "store/didChangeExternally", "\(title)")
            #expect(Self.titles(Self.responses(next).first) == (title == "a" ? ["b", "c", "a"] : ["c", "b", "a"]))
            // A save of this process's own, then the commit elsewhere.
            let own = f.send(
                (
                    "context/update",
                    ["context": "main", "id": "Note/1", "values": ["rank": .integer(Int64(10 + rank))]]
                ),
                ("context/save", ["context": "main"]))
            #expect(Self.responses(own).last?["result"]?["updated"] == 1)
        }
        let saved = f.send(
            ("context/update", ["context": "main", "id": "Note/3", "values": ["title": "cc"]]),
            ("context/save", ["context": "main"]))
        #expect(Self.responses(saved).count == 2)
        try f.plain.execute("UPDATE \"Note\" SET rank = 0 WHERE title = 'cc'")
        let last = f.send(Fixture.rows)
        #expect(Self.methods(last).last == "store/didChangeExternally")
        #expect(Self.titles(Self.responses(last).first) == ["cc", "b", "a"])
    }
}
