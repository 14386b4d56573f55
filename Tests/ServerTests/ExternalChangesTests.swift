import JSON
import JSONRPC
import SQLite
import TestSupport
import Testing

@testable import Server

#if canImport(Glibc)
    import Glibc
#endif

/// Other processes' commits on the wire (protocol.md §5 "External changes and the history",
/// §1.5): two Servers on one file stand for two fetchd processes, a raw SQLite connection for
/// a plain client.
@Suite struct ExternalChangesTests {
    static let model: JSON = ["entities": [["name": "Note", "attributes": ["title": ["type": "string"]]]]]

    /// A harness on `path` with the model open, one request already answered.
    private func open(_ path: String, watch: WatchMode = .off) -> Harness {
        let h = Harness(.ndjson, server: Server(configuration: .init(watch: watch)))
        let answer = h.send([request(1, "store/open", ["path": .string(path), "model": Self.model])])
        #expect(answer.first?["result"]?["entities"] == ["Note"])
        return h
    }

    private func request(_ id: Int64, _ method: String, _ params: JSON? = nil) -> String {
        var o: JSONObject = ["jsonrpc": "2.0", "method": .string(method), "id": .integer(id)]
        if let params { o["params"] = params }
        return JSON.object(o).description
    }

    private func insert(_ h: Harness, _ title: String, context: String = "main") {
        let out = h.send([
            request(
                90, "context/insert",
                [
                    "context": .string(context), "entity": "Note",
                    "values": ["title": .string(title)],
                ]),
            request(91, "context/save", ["context": .string(context)]),
        ])
        #expect(out.last?["result"]?["inserted"] == 1)
    }

    private func methods(_ messages: [JSON]) -> [String] {
        messages.map { $0["method"]?.stringValue ?? "response" }
    }

    private func watchController(_ h: Harness) {
        let out = h.send([
            request(
                2, "controller/create",
                [
                    "context": "main", "name": "notes",
                    "request": [
                        "entity": "Note",
                        "sortDescriptors": [["key": "title"]],
                    ],
                ]),
            request(3, "controller/performFetch", ["controller": "notes"]),
        ])
        #expect(out.count == 2)
    }

    @Test func checkExternalChangesMergesAnotherProcessesSaveWithItsNotificationsFirst() throws {
        let dir = TempDir()
        // A reserved Note/1-48 at open (ids ahead of need, protocol.md §5): B's rows come after.
        let a = open(dir.file("s.sqlite"))
        let b = open(dir.file("s.sqlite"))
        watchController(a)
        _ = b.send([request(4, "context/create", ["name": "writer", "transactionAuthor": "b"])])
        insert(b, "x", context: "writer")

        let out = a.send([request(5, "store/checkExternalChanges")])
        #expect(
            methods(out) == [
                "controller/willChangeContent", "controller/didChangeObject",
                "controller/didChangeContent", "store/didChangeExternally", "response",
            ])
        #expect(out[1]["params"]?["id"] == "Note/49")
        #expect(out[1]["params"]?["type"] == "insert")
        let note = out[3]["params"]
        #expect(note?["transactions"]?.arrayValue?.count == 1)
        let t = note?["transactions"]?.arrayValue?.first
        #expect(t?["author"] == "b")
        #expect(t?["changes"] == [["entity": "Note", "id": "Note/49", "type": "insert"]])
        #expect(out[4]["result"]?["merged"] == 1)
        #expect(out[4]["result"]?["token"] == note?["token"])
        #expect(out[4]["result"]?["token"] == t?["token"])

        // Merged once: a second check finds nothing; the controller shows the row.
        let again = a.send([request(6, "store/checkExternalChanges")])
        #expect(methods(again) == ["response"])
        #expect(again[0]["result"]?["merged"] == 0)
        let rows = a.send([request(7, "controller/rows", ["controller": "notes", "section": 0])])
        #expect(rows[0]["result"]?["objects"]?.arrayValue?.count == 1)

        // A's own save is never merged as external, and B merges it.
        insert(a, "y")
        #expect(a.send([request(8, "store/checkExternalChanges")])[0]["result"]?["merged"] == 0)
        let atB = b.send([request(9, "store/checkExternalChanges")])
        #expect(methods(atB) == ["store/didChangeExternally", "response"])
        #expect(atB[0]["params"]?["transactions"]?.arrayValue?.first?["author"] == .null)
    }

    @Test func aPlainClientsWriteIsMergedWithNoAuthor() throws {
        let dir = TempDir()
        // A reserved Note/1-48 at open (ids ahead of need, protocol.md §5): a plain insert lands above.
        let a = open(dir.file("s.sqlite"))
        watchController(a)
        let plain = try Connection(path: dir.file("s.sqlite"))
        try plain.execute("PRAGMA busy_timeout=5000")
        try plain.execute("INSERT INTO Note (title) VALUES ('p'); UPDATE Note SET title = 'q'")
        let out = a.send([request(5, "store/checkExternalChanges")])
        #expect(
            methods(out) == [
                "controller/willChangeContent", "controller/didChangeObject",
                "controller/didChangeContent", "store/didChangeExternally", "response",
            ])
        #expect(out[1]["params"]?["object"]?["title"] == "q")
        let t = out[3]["params"]?["transactions"]?.arrayValue?.first
        #expect(t?["author"] == .null)
        #expect(
            t?["changes"] == [
                ["entity": "Note", "id": "Note/49", "type": "insert"],
                ["entity": "Note", "id": "Note/49", "type": "update", "keys": ["title"]],
            ])
        #expect(out[4]["result"]?["merged"] == 1)
    }

    @Test func watchingWritesTheMergeBeforeTheNextMessagesOutputAndWhenIdle() throws {
        let dir = TempDir()
        let a = open(dir.file("s.sqlite"), watch: .poll)
        let b = open(dir.file("s.sqlite"))
        watchController(a)
        insert(b, "x")
        // Before a batch: the notifications are written on their own, then the batch's array.
        let out = a.send(["[\(request(4, "server/ping")),\(request(5, "server/ping"))]"])
        #expect(
            methods(out) == [
                "controller/willChangeContent", "controller/didChangeObject",
                "controller/didChangeContent", "store/didChangeExternally", "response",
            ])
        #expect(out[4].arrayValue?.count == 2)

        // Idle input: the transport's wake-up merges with nothing received.
        insert(b, "y")
        #expect(a.server.idleIntervalMilliseconds == Server.pollMilliseconds)
        var idle: [UInt8] = []
        a.session.idle { idle += $0.contents }
        let unsolicited = Harness.messages(idle, framing: .ndjson)
        #expect(
            methods(unsolicited) == [
                "controller/willChangeContent", "controller/didChangeObject",
                "controller/didChangeContent", "store/didChangeExternally",
            ])
        var nothing: [UInt8] = []
        a.session.idle { nothing += $0.contents }
        #expect(nothing.isEmpty)

        // Reading the history does not hide a commit from the watcher.
        insert(b, "z")
        let read = a.send([request(6, "store/history", ["after": 0, "limit": 1])])
        #expect(
            methods(read) == [
                "controller/willChangeContent", "controller/didChangeObject",
                "controller/didChangeContent", "store/didChangeExternally", "response",
            ])
        insert(b, "w")
        _ = a.server.call("store/history", ["after": 0])
        #expect(methods(a.send([request(7, "server/ping")])).count == 5)
    }

    @Test func watchOffWritesNothingUnsolicited() throws {
        let dir = TempDir()
        let a = open(dir.file("s.sqlite"), watch: .off)
        let b = open(dir.file("s.sqlite"))
        watchController(a)
        insert(b, "x")
        #expect(a.server.idleIntervalMilliseconds == nil)
        var idle: [UInt8] = []
        a.session.idle { idle += $0.contents }
        #expect(idle.isEmpty)
        #expect(methods(a.send([request(4, "server/ping")])) == ["response"])
        #expect(a.send([request(5, "store/checkExternalChanges")])[4]["result"]?["merged"] == 1)
    }

    @Test func autoWatchesFilesNotMemoryAndNothingBeforeTheFirstRequest() throws {
        let dir = TempDir()
        let memory = Server(configuration: .init(watch: .auto))
        _ = try memory.call("store/open", ["model": Self.model]).get()
        let file = Server(configuration: .init(watch: .auto))
        _ = try file.call("store/open", ["path": .string(dir.file("s.sqlite")), "model": Self.model]).get()
        // Opened at start-up (as --store does): nothing is sent before the client's first request.
        #expect(file.idleIntervalMilliseconds == nil)
        let h = Harness(.ndjson, server: file)
        _ = h.send([request(1, "server/ping")])
        // inotify wakes the transport; the interval is only the fallback.
        #expect(file.wakeDescriptor != nil)
        #expect(file.idleIntervalMilliseconds == Server.fallbackMilliseconds)
        let m = Harness(.ndjson, server: memory)
        _ = m.send([request(1, "server/ping")])
        #expect(memory.idleIntervalMilliseconds == nil)
        #expect(memory.wakeDescriptor == nil)
        _ = h.send([request(2, "shutdown")])
        #expect(file.idleIntervalMilliseconds == nil)
        #expect(file.wakeDescriptor == nil)
    }

    @Test func autoWakesOnAnotherProcesssCommitAndMergesIt() throws {
        let dir = TempDir()
        let a = open(dir.file("s.sqlite"), watch: .auto)
        let b = open(dir.file("s.sqlite"))
        watchController(a)
        let fd = try #require(a.server.wakeDescriptor)
        a.session.idle { _ in } // reads what opening wrote
        var quiet = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        #expect(poll(&quiet, 1, 0) == 0)
        insert(b, "x")
        var woken = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        #expect(poll(&woken, 1, 2000) == 1)
        var idle: [UInt8] = []
        a.session.idle { idle += $0.contents }
        #expect(methods(Harness.messages(idle, framing: .ndjson)).last == "store/didChangeExternally")
        var drained = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        #expect(poll(&drained, 1, 0) == 0)
    }

    @Test func aWatchingServersOwnSaveNeitherWakesItNorStartsRechecks() throws {
        let dir = TempDir()
        let a = open(dir.file("s.sqlite"), watch: .auto)
        watchController(a)
        let fd = try #require(a.server.wakeDescriptor)
        a.session.idle { _ in }
        for title in ["one", "two"] {
            insert(a, title)
            var quiet = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            #expect(poll(&quiet, 1, 0) == 0)
            var idle: [UInt8] = []
            a.session.idle { idle += $0.contents }
            #expect(idle.isEmpty)
            // Waiting for input (and other processes' writes) again, not checking every millisecond.
            #expect(a.server.idleIntervalMilliseconds == Server.fallbackMilliseconds)
        }
    }

    @Test func aForcedPurgeMakesTheReaderRefetchItsControllers() throws {
        let dir = TempDir()
        // A reserved Note/1-48 at open (ids ahead of need, protocol.md §5): B's rows come after.
        let a = open(dir.file("s.sqlite"))
        let b = open(dir.file("s.sqlite"))
        watchController(a)
        insert(b, "x")
        insert(b, "y")
        let token = b.send([request(2, "store/historyToken")])[0]["result"]?["token"] ?? 0
        _ = b.send([request(3, "store/checkExternalChanges")])
        // A has not merged x and y: only a forced purge takes their rows.
        #expect(b.send([request(4, "store/purgeHistory", ["before": token])])[0]["result"] == ["deleted": 0])
        #expect(
            b.send([request(5, "store/purgeHistory", ["before": token, "force": true])])[0]["result"] == ["deleted": 1])
        let out = a.send([request(6, "store/checkExternalChanges")])
        // The controller fetched again: one cycle from the old results (empty) to x and y.
        #expect(
            methods(out) == [
                "controller/willChangeContent", "controller/didChangeObject", "controller/didChangeObject",
                "controller/didChangeContent", "store/didChangeExternally", "response",
            ])
        #expect(out.filter { $0["params"]?["type"] == "insert" }.map { $0["params"]?["id"] } == ["Note/49", "Note/50"])
        #expect(out[4]["params"]?["gap"] == true)
        // Only the newest transaction (y's) was left to list.
        #expect(out[4]["params"]?["transactions"]?.arrayValue?.count == 1)
        #expect(out.last?["result"] == ["merged": 1, "token": token])
    }

    /// The refetch after a gap fails (a plain client renamed the table away): the controller
    /// says so instead of sending a cycle, keeps its rows, and catches up at its next cycle
    /// (protocol.md §10.9).
    @Test func aControllerThatCannotFetchAgainSaysSoAndCatchesUpAtItsNextCycle() throws {
        let dir = TempDir()
        let a = open(dir.file("s.sqlite"))
        let b = open(dir.file("s.sqlite"))
        watchController(a)
        insert(b, "x")
        insert(b, "y")
        let token = b.send([request(2, "store/historyToken")])[0]["result"]?["token"] ?? 0
        _ = b.send([request(3, "store/checkExternalChanges")])
        #expect(
            b.send([request(4, "store/purgeHistory", ["before": token, "force": true])])[0]["result"] == ["deleted": 1])
        let plain = try Connection(path: dir.file("s.sqlite"))
        try plain.execute("PRAGMA busy_timeout=5000; ALTER TABLE \"Note\" RENAME TO \"NoteAway\"")

        let failed = a.send([request(5, "store/checkExternalChanges")])
        #expect(methods(failed) == ["controller/didFailToFetch", "store/didChangeExternally", "response"])
        #expect(failed[0]["params"]?["controller"] == "notes")
        #expect(failed[0]["params"]?["error"]?["code"] == -32013)
        #expect(failed[0]["params"]?["error"]?["data"]?["kind"] == "storeError")
        #expect(failed[1]["params"]?["gap"] == true)
        // It kept the rows its client holds (none).
        let sections = a.send([request(6, "controller/sections", ["controller": "notes"])])[0]["result"]?["sections"]
        #expect(sections?.arrayValue?.first?["numberOfObjects"] == 0)

        try plain.execute("ALTER TABLE \"NoteAway\" RENAME TO \"Note\"")
        // A merge that merges nothing has no cycle: the controller still owes its refetch.
        #expect(methods(a.send([request(7, "store/checkExternalChanges")])) == ["response"])
        // The next cycle of its context, whatever it changed, brings it up to date at once.
        let next = a.send([
            request(
                8, "context/insert", ["context": "main", "entity": "Note", "values": ["title": "z"]])
        ])
        #expect(
            methods(next) == [
                "controller/willChangeContent", "controller/didChangeObject", "controller/didChangeObject",
                "controller/didChangeObject", "controller/didChangeContent", "response",
            ])
        #expect(next.dropFirst().prefix(3).map { $0["params"]?["object"]?["title"] } == ["x", "y", "z"])
        #expect(next.dropFirst().prefix(3).map { $0["params"]?["type"] } == ["insert", "insert", "insert"])
        #expect(next.dropFirst().prefix(3).map { $0["params"]?["newIndexPath"] } == [[0, 0], [0, 1], [0, 2]])
    }

    @Test func purgeByDate() throws {
        let dir = TempDir()
        let a = open(dir.file("s.sqlite"))
        insert(a, "a")
        insert(a, "b")
        insert(a, "c")
        _ = a.send([request(2, "store/checkExternalChanges")])
        let old = a.send([request(3, "store/purgeHistory", ["before": "2000-01-01T00:00:00Z"])])
        #expect(old[0]["result"] == ["deleted": 0])
        let all = a.send([request(4, "store/purgeHistory", ["before": "2100-01-01T00:00:00Z"])])
        // Every row is older than that date; the newest stays.
        #expect(all[0]["result"] == ["deleted": 2])
        let bad = a.send([request(5, "store/purgeHistory", ["before": "yesterday"])])
        #expect(bad[0]["error"]?["code"] == -32602)
    }

    @Test func invalidValuesOfAPlainClientAreMergedAndListed() throws {
        let dir = TempDir()
        // A reserved Note/1-48 at open (ids ahead of need, protocol.md §5): a plain insert lands above.
        let a = open(dir.file("s.sqlite"))
        watchController(a)
        let plain = try Connection(path: dir.file("s.sqlite"))
        try plain.execute(
            "PRAGMA busy_timeout=5000; INSERT INTO Note (title) VALUES (NULL); INSERT INTO Note (title) VALUES (x'01')")
        let out = a.send([request(2, "store/checkExternalChanges")])
        #expect(out.last?["result"]?["merged"] == 1)
        let note = out.first { $0["method"] == "store/didChangeExternally" }
        #expect(
            note?["params"]?["invalid"]
                == [
                    ["entity": "Note", "id": "Note/49", "key": "title", "problem": "required value missing"],
                    ["entity": "Note", "id": "Note/50", "key": "title", "problem": "expected string, found blob"],
                ])
        // Merged all the same: both rows reached the controller.
        #expect(out.filter { $0["method"] == "controller/didChangeObject" }.count == 2)
    }

    @Test func historyTokenHistoryFiltersAndPurge() throws {
        let dir = TempDir()
        let a = open(dir.file("s.sqlite"))
        let b = open(dir.file("s.sqlite"))
        #expect(a.send([request(2, "store/historyToken")])[0]["result"] == ["token": 0])
        _ = a.send([request(3, "context/create", ["name": "importer", "transactionAuthor": "import"])])
        insert(a, "a", context: "importer")
        insert(b, "b")
        let plain = try Connection(path: dir.file("s.sqlite"))
        try plain.execute("PRAGMA busy_timeout=5000; DELETE FROM Note WHERE title = 'a'")
        let token = a.send([request(4, "store/historyToken")])[0]["result"]?["token"]
        #expect(token == 3)

        let all = try #require(a.send([request(5, "store/history", ["after": 0])])[0]["result"])
        #expect(all["more"] == false)
        let ts = try #require(all["transactions"]?.arrayValue)
        #expect(ts.map { $0["author"] } == ["import", .null, .null])
        #expect(ts.map { $0["token"] } == [1, 2, 3])
        #expect(ts.map { $0["changes"]?.arrayValue?.first?["type"] } == ["insert", "insert", "delete"])
        for t in ts {
            guard case .double(let time)? = t["time"] else {
                Issue.record("no time: \(t)")
                continue
            }
            #expect(time > 1_000_000_000)
        }

        let page = try #require(a.send([request(6, "store/history", ["after": 1, "limit": 1])])[0]["result"])
        #expect(page["more"] == true)
        #expect(page["transactions"]?.arrayValue?.map { $0["token"] } == [2])
        let byAuthor = a.send([request(7, "store/history", ["after": 0, "authors": ["import"]])])
        #expect(byAuthor[0]["result"]?["transactions"]?.arrayValue?.map { $0["token"] } == [1])
        let unknown = a.send([request(8, "store/history", ["after": 0, "entities": ["Nope"]])])
        #expect(unknown[0]["error"]?["data"]?["kind"] == "unknownEntity")

        // A has merged nothing yet: an unforced purge keeps what it has still to merge.
        let kept = a.send([request(9, "store/purgeHistory", ["before": 100])])
        #expect(kept[0]["result"] == ["deleted": 0])
        // Forced, it purges; the newest row stays: the next token is above every one given out.
        let purged = a.send([request(9, "store/purgeHistory", ["before": 100, "force": true])])
        #expect(purged[0]["result"] == ["deleted": 2])
        let left = a.send([request(10, "store/history", ["after": 0])])[0]["result"]?["transactions"]
        #expect(left?.arrayValue?.map { $0["token"] } == [3])
        insert(b, "c")
        #expect(a.send([request(11, "store/historyToken")])[0]["result"] == ["token": 4])
        let merged = a.send([request(12, "store/checkExternalChanges")])
        // A had not merged token 2 when it was purged: only 3 and 4 are listed, and the
        // notification says there was a gap (its controllers fetched again; protocol.md §5).
        #expect(merged.last?["result"] == ["merged": 2, "token": 4])
        let note = merged.first { $0["method"] == "store/didChangeExternally" }
        #expect(note?["params"]?["gap"] == true)
    }

    @Test func storeOpenWithAHistoryTokenAnnouncesWhatHappenedSince() throws {
        let dir = TempDir()
        let first = open(dir.file("s.sqlite"))
        _ = first.send([request(2, "context/create", ["name": "app", "transactionAuthor": "app"])])
        insert(first, "before", context: "app")
        let token = first.send([request(3, "store/historyToken")])[0]["result"]?["token"]
        insert(first, "after", context: "app")
        first.server.close()

        // Watching: the merge owed is written before the first answer after the open.
        let h = Harness(.ndjson, server: Server(configuration: .init(watch: .poll)))
        _ = h.send([
            request(
                1, "store/open",
                [
                    "path": .string(dir.file("s.sqlite")), "model": Self.model,
                    "historyToken": token ?? .null,
                ])
        ])
        let out = h.send([request(2, "server/ping")])
        #expect(methods(out) == ["store/didChangeExternally", "response"])
        let ts = out[0]["params"]?["transactions"]?.arrayValue ?? []
        #expect(ts.map { $0["author"] } == ["app"])
        #expect(ts.first?["changes"] == [["entity": "Note", "id": "Note/2", "type": "insert"]])
        #expect(methods(h.send([request(3, "server/ping")])) == ["response"])

        // Not watching: store/checkExternalChanges takes them; without a token nothing is owed.
        let off = open(dir.file("s.sqlite"))
        #expect(off.send([request(2, "store/checkExternalChanges")])[0]["result"]?["merged"] == 0)
        let resumed = Harness(.ndjson, server: Server(configuration: .init(watch: .off)))
        _ = resumed.send([
            request(
                1, "store/open",
                [
                    "path": .string(dir.file("s.sqlite")), "model": Self.model,
                    "historyToken": 0,
                ])
        ])
        let merged = resumed.send([request(2, "store/checkExternalChanges")])
        #expect(merged.last?["result"]?["merged"] == 2)
    }
}
