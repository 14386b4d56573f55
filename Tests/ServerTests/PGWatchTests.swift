import Foundation
import JSON
import JSONRPC
import Logging
import Postgres
import Store
import TestSupport
import Testing

@testable import Server

#if canImport(Glibc)
    import Glibc
#endif

/// The listener as the server sees it (an adapter, so this test declares no conformance that
/// the PostgreSQL store's module may declare too).
final class ListenerAnnouncer: ChangeAnnouncer {
    let listener: PGChangeListener
    init(_ listener: PGChangeListener) { self.listener = listener }
    var descriptor: Int32 { listener.descriptor }
    func drain() -> Bool { listener.drain() }
    var retryMilliseconds: Int32? { listener.retryMilliseconds }
    var wakesBeforeCommit: Bool { listener.wakesBeforeCommit }
}

/// Collects what the server logs.
final class CapturedLog: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [String] = []
    var messages: [String] { lock.withLock { entries } }
    func append(_ message: String) { lock.withLock { entries.append(message) } }
}

struct CapturingLogHandler: LogHandler {
    let log: CapturedLog
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) { log.append("\(event.level): \(event.message)") }
}

/// A watching server whose announcer is a real PostgreSQL LISTEN connection (make
/// test-postgres): killing that connection's backend at a known point is logged, waited out
/// with the retry delay instead of the dead descriptor, re-established, and listened on again.
@Suite(.serialized) struct PGWatchTests {
    static let model: JSON = ["entities": [["name": "Note", "attributes": ["title": ["type": "string"]]]]]

    func poll(_ fd: Int32, _ milliseconds: Int32) -> Bool {
        var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
        return Glibc.poll(&fds, 1, milliseconds) == 1
    }

    /// The transport's loop: poll the wake descriptor for the idle interval, then the idle
    /// check; until `done` or 10 s.
    func idleLikeTheTransport(_ h: Harness, until done: () -> Bool) -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while !done() {
            guard ContinuousClock.now < deadline else { return false }
            _ = poll(h.server.wakeDescriptor ?? -1, h.server.idleIntervalMilliseconds ?? 100)
            h.session.idle { _ in }
        }
        return true
    }

    @Test func aKilledListenerIsLoggedReconnectedAndListenedOnAgain() throws {
        let url = try TestPostgres.url()
        let dir = TempDir()
        let captured = CapturedLog()
        let server = Server(
            configuration: .init(watch: .auto),
            logger: Logger(label: "test") { _ in CapturingLogHandler(log: captured) })
        var listener: PGChangeListener?
        server.watchState.makeAnnouncer = { _, log in
            listener = try? PGChangeListener(conninfo: url, channel: "fetchd_watch_test", log: log)
            return listener.map(ListenerAnnouncer.init)
        }
        _ = try server.call("store/open", ["path": .string(dir.file("s.sqlite")), "model": Self.model]).get()
        let h = Harness(.ndjson, server: server)
        _ = h.send([#"{"jsonrpc":"2.0","method":"server/ping","id":1}"#])
        let fd = try #require(server.wakeDescriptor) // made on first use
        let announcer = try #require(listener)
        #expect(fd >= 0)

        // A commit's announcement wakes the transport's poll and is drained at the idle check.
        let admin = try PGConnection(url)
        try PGChangeListener.announce(on: admin, channel: "fetchd_watch_test", token: 7)
        #expect(poll(fd, 5000))
        h.session.idle { _ in }
        #expect(announcer.lastAnnouncedToken == 7)
        #expect(!poll(fd, 0))

        // Kill the listener's backend: the closed socket wakes the transport, the loss is logged,
        // and the transport waits for the retry delay instead of the dead descriptor.
        try admin.exec("SELECT pg_terminate_backend($1::int)", [.int(Int64(announcer.backendPID))])
        #expect(idleLikeTheTransport(h) { server.wakeDescriptor == -1 })
        let wait = try #require(server.idleIntervalMilliseconds)
        #expect(wait >= 1 && wait <= 50)
        #expect(captured.messages.contains { $0.hasPrefix("warning: lost the PostgreSQL notification connection") })

        // Once the delay passed, an idle check reconnects (logged) and listens again.
        #expect(idleLikeTheTransport(h) { announcer.reconnects == 1 })
        #expect(captured.messages.contains { $0.hasPrefix("warning: reconnected to PostgreSQL") })
        let newFD = try #require(server.wakeDescriptor)
        #expect(newFD >= 0)
        #expect(server.idleIntervalMilliseconds == Server.fallbackMilliseconds)
        try PGChangeListener.announce(on: admin, channel: "fetchd_watch_test", token: 9)
        #expect(poll(newFD, 5000))
        h.session.idle { _ in }
        #expect(announcer.lastAnnouncedToken == 9)
    }
}
