import JSON
import JSONRPC
import Store
import TestSupport
import Testing

@testable import Server

#if canImport(Glibc)
    import Glibc
#endif

/// How `--watch auto` uses the store's announcer (protocol.md §5, Watching), with a stand-in
/// announcer on a pipe: what the transport waits on while it reconnects, and whether a
/// wake-up that found nothing is rechecked (an inotify wake can precede the commit; a
/// PostgreSQL NOTIFY follows it).
@Suite struct ChangeAnnouncerWatchTests {
    static let model: JSON = ["entities": [["name": "Note", "attributes": ["title": ["type": "string"]]]]]

    final class StandIn: ChangeAnnouncer {
        let readEnd: Int32
        let writeEnd: Int32
        var connected = true
        var retryMilliseconds: Int32?
        let wakesBeforeCommit: Bool
        var drains = 0
        var log: ((String) -> Void)?

        init(wakesBeforeCommit: Bool) {
            var fds: [Int32] = [0, 0]
            precondition(pipe(&fds) == 0)
            readEnd = fds[0]
            writeEnd = fds[1]
            _ = fcntl(readEnd, F_SETFL, fcntl(readEnd, F_GETFL) | O_NONBLOCK)
            self.wakesBeforeCommit = wakesBeforeCommit
        }

        deinit {
            close(readEnd)
            close(writeEnd)
        }

        var descriptor: Int32 { connected ? readEnd : -1 }

        func announce() { _ = write(writeEnd, "x", 1) }

        func drain() -> Bool {
            drains += 1
            var byte: UInt8 = 0
            var woken = false
            while read(readEnd, &byte, 1) == 1 { woken = true }
            return woken
        }
    }

    private func watching(_ announcer: StandIn, in dir: TempDir) throws -> Harness {
        let server = Server(configuration: .init(watch: .auto))
        // A clock that stands still: a kept snapshot never ages here unless a test moves it.
        server.watchState.now = { 1 }
        server.watchState.makeAnnouncer = { _, log in
            announcer.log = log
            return announcer
        }
        _ = try server.call("store/open", ["path": .string(dir.file("s.sqlite")), "model": Self.model]).get()
        let h = Harness(.ndjson, server: server)
        _ = h.send([#"{"jsonrpc":"2.0","method":"server/ping","id":1}"#])
        return h
    }

    @Test func whileReconnectingTheTransportWaitsForTheRetryNotTheDescriptor() throws {
        let dir = TempDir()
        let announcer = StandIn(wakesBeforeCommit: false)
        let h = try watching(announcer, in: dir)
        #expect(h.server.wakeDescriptor == announcer.readEnd)
        #expect(h.server.idleIntervalMilliseconds == Server.fallbackMilliseconds)
        announcer.connected = false
        announcer.retryMilliseconds = 200
        #expect(h.server.wakeDescriptor == -1)
        #expect(h.server.idleIntervalMilliseconds == 200)
        // A long backoff is still bounded by the fallback check; a due attempt never spins at 0.
        announcer.retryMilliseconds = 5000
        #expect(h.server.idleIntervalMilliseconds == Server.fallbackMilliseconds)
        announcer.retryMilliseconds = 0
        #expect(h.server.idleIntervalMilliseconds == 1)
        // Each idle wake-up drains it (where a reconnect is attempted).
        let before = announcer.drains
        h.session.idle { _ in }
        #expect(announcer.drains > before)
    }

    @Test func aWakeThatFoundNothingIsRecheckedOnlyWhenItCanPrecedeTheCommit() throws {
        for early in [true, false] {
            let dir = TempDir()
            let announcer = StandIn(wakesBeforeCommit: early)
            let h = try watching(announcer, in: dir)
            h.session.idle { _ in }
            announcer.announce()
            var out: [UInt8] = []
            h.session.idle { out += $0.contents }
            #expect(out.isEmpty)
            #expect(
                h.server.idleIntervalMilliseconds
                    == (early ? Server.recheckMilliseconds : Server.fallbackMilliseconds))
        }
    }

    /// The statements of the watched store's connection that begin or end its read snapshot
    /// while `body` runs.
    private func snapshotStatements(_ h: Harness, _ body: () -> Void) throws -> [String] {
        let store = try #require(h.server.contexts.graph?.store as? SQLiteStore)
        var seen: [String] = []
        try store.connection.observeStatements { sql in
            if sql.hasPrefix("BEGIN") || sql.hasPrefix("COMMIT") { seen.append(sql) }
        }
        defer { try? store.connection.observeStatements(nil) }
        body()
        return seen
    }

    private func saved(_ title: String) -> [String] {
        [
            #"[{"jsonrpc":"2.0","method":"context/insert","params":{"context":"main","entity":"Note","values":{"title":"\#(title)"}},"id":2},"#
                + #"{"jsonrpc":"2.0","method":"context/save","params":{"context":"main"},"id":3}]"#
        ]
    }

    private let count = [
        #"{"jsonrpc":"2.0","method":"context/count","params":{"context":"main","request":{"entity":"Note"}},"id":9}"#
    ]

    @Test func aWatchThatSeesEveryWriteKeepsTheSnapshotFromMessageToMessageUntilInputIdles() throws {
        let dir = TempDir()
        let announcer = StandIn(wakesBeforeCommit: true)
        let h = try watching(announcer, in: dir)
        let store = try #require(h.server.contexts.graph?.store)
        // The first check under the watch takes a new snapshot (the one held began before the
        // watch), and the answer leaves it held.
        #expect(try snapshotStatements(h) { _ = h.send(count) } == ["COMMIT", "BEGIN"])
        #expect(store.holdsSnapshot)
        // Nothing was written since it began: the next message reads it again.
        #expect(try snapshotStatements(h) { _ = h.send(count) }.isEmpty)
        #expect(store.holdsSnapshot)
        // A save ends it and takes the next (the upgrade and its commit), which the next
        // message keeps too.
        #expect(try snapshotStatements(h) { _ = h.send(saved("a")) } == ["COMMIT", "BEGIN"])
        #expect(try snapshotStatements(h) { _ = h.send(count) }.isEmpty)
        // Input went idle: that check takes a new snapshot and it ends with its output.
        #expect(try snapshotStatements(h) { h.session.idle { _ in } } == ["COMMIT", "BEGIN", "COMMIT"])
        #expect(!store.holdsSnapshot)
        // The next message begins one again.
        #expect(try snapshotStatements(h) { _ = h.send(count) } == ["BEGIN"])
    }

    @Test func aKeptSnapshotIsRenewedOnceItIsAsOldAsTheIdleFallback() throws {
        let dir = TempDir()
        let announcer = StandIn(wakesBeforeCommit: true)
        let h = try watching(announcer, in: dir)
        var clock: UInt64 = 1_000_000_000
        h.server.watchState.now = { clock }
        _ = h.send(count)
        let fallback = UInt64(Server.fallbackMilliseconds) * 1_000_000
        clock += fallback - 1
        #expect(try snapshotStatements(h) { _ = h.send(count) }.isEmpty)
        // A watch that missed a write is caught up with as soon as by the idle check.
        clock += 1
        #expect(try snapshotStatements(h) { _ = h.send(count) } == ["COMMIT", "BEGIN"])
        #expect(try snapshotStatements(h) { _ = h.send(count) }.isEmpty)
    }

    @Test func theCheckBeforeTheFirstMessageOfAQuietWaitDoesNotReadTheWatch() throws {
        for early in [true, false] {
            let dir = TempDir()
            let announcer = StandIn(wakesBeforeCommit: early)
            let h = try watching(announcer, in: dir)
            let before = announcer.drains
            // Two messages in one read after a wait that found the watch quiet: the second
            // comes later, so its check reads the watch. An announcer whose drain may also
            // reconnect (wake-ups after the commit: PostgreSQL) is always read.
            h.session.wakeQuiet = true
            _ = h.send(count + count)
            #expect(announcer.drains == before + (early ? 1 : 2))
            #expect(!h.session.wakeQuiet)
        }
    }

    @Test func aWatchThatWakesAfterTheCommitTakesASnapshotPerMessage() throws {
        let dir = TempDir()
        let announcer = StandIn(wakesBeforeCommit: false)
        let h = try watching(announcer, in: dir)
        let store = try #require(h.server.contexts.graph?.store)
        #expect(try snapshotStatements(h) { _ = h.send(count) } == ["COMMIT", "BEGIN", "COMMIT"])
        #expect(!store.holdsSnapshot)
        #expect(try snapshotStatements(h) { _ = h.send(count) } == ["BEGIN", "COMMIT"])
        #expect(!store.holdsSnapshot)
    }

    /// Another writer of the same file, not watching.
    private func anotherProcess(in dir: TempDir) -> Harness {
        let b = Harness(.ndjson, server: Server(configuration: .init(watch: .off)))
        _ = b.send([
            JSON.object([
                "jsonrpc": "2.0", "method": "store/open", "id": 1,
                "params": ["path": .string(dir.file("s.sqlite")), "model": Self.model],
            ]).description
        ])
        return b
    }

    @Test func aKeptSnapshotGivesWayToAnotherProcessesCommitTheWatchReports() throws {
        let dir = TempDir()
        let announcer = StandIn(wakesBeforeCommit: true)
        let a = try watching(announcer, in: dir)
        let b = anotherProcess(in: dir)
        _ = a.send(count)
        _ = b.send(saved("x"))
        // Unreported, the commit stays out of the kept snapshot: what keeps it is the watch.
        #expect(a.send(count).last?["result"]?["count"] == 0)
        announcer.announce()
        let messages = a.send(count)
        #expect(messages.first?["method"] == "store/didChangeExternally")
        #expect(messages.last?["result"]?["count"] == 1)
    }

    @Test func aWakeMergesWhatAnotherProcessCommitted() throws {
        let dir = TempDir()
        let announcer = StandIn(wakesBeforeCommit: false)
        let a = try watching(announcer, in: dir)
        let b = anotherProcess(in: dir)
        _ = b.send(saved("x"))
        announcer.announce()
        var out: [UInt8] = []
        a.session.idle { out += $0.contents }
        let messages = Harness.messages(out, framing: .ndjson)
        #expect(messages.last?["method"] == "store/didChangeExternally")
        #expect(messages.last?["params"]?["transactions"]?.arrayValue?.count == 1)
    }
}
