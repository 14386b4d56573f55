import Postgres
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite(.serialized) struct PGChangeListenerTests {
    /// Polls the listener's descriptor (or its retry delay) and drains it, like the server's
    /// idle loop, until `drain()` answers true or `timeoutMilliseconds` pass.
    func waitForWakeUp(_ listener: PGChangeListener, timeoutMilliseconds: Int = 10_000) -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(timeoutMilliseconds)
        while ContinuousClock.now < deadline {
            var fds = [pollfd(fd: listener.descriptor, events: Int16(POLLIN), revents: 0)]
            _ = poll(&fds, 1, listener.retryMilliseconds ?? 100)
            if listener.drain() { return true }
        }
        return false
    }

    @Test func aCommitsNotificationWakesTheListenerWithItsToken() throws {
        let url = try PGTestDatabase.url
        let listener = try PGChangeListener(conninfo: url, channel: PGChangeListener.channel(schema: "listen_a"))
        #expect(listener.channel == "fetchd_listen_a")
        #expect(!listener.drain())
        let writer = try PGTestDatabase.connect()
        try writer.notify("fetchd_listen_a", payload: "17")
        try writer.notify("fetchd_other", payload: "99")
        #expect(waitForWakeUp(listener))
        #expect(listener.lastAnnouncedToken == 17)
        // Another dataset's channel does not wake it.
        try writer.notify("fetchd_other", payload: "100")
        #expect(!waitForWakeUp(listener, timeoutMilliseconds: 200))
    }

    @Test func aDroppedConnectionReconnectsWithBackoffWakesAndLogsIt() throws {
        let url = try PGTestDatabase.url
        var logged: [String] = []
        let listener = try PGChangeListener(
            conninfo: url, channel: "fetchd_listen_b", log: { logged.append($0) })
        let admin = try PGTestDatabase.connect()
        let pids = try admin.exec(
            "SELECT pid FROM pg_stat_activity WHERE query LIKE 'LISTEN \"fetchd_listen_b\"%' AND pid <> pg_backend_pid()"
        )
        #expect(pids.count == 1)
        try admin.exec("SELECT pg_terminate_backend($1::int)", [pids.rows[0][0].map(PGValue.text)])
        // The loss is seen, then the reconnect is a wake-up of its own (a NOTIFY may have been missed).
        #expect(waitForWakeUp(listener))
        #expect(listener.isConnected)
        #expect(listener.reconnects == 1)
        #expect(logged.count == 2)
        #expect(logged.first?.hasPrefix("lost the PostgreSQL notification connection") == true)
        #expect(logged.last?.hasPrefix("reconnected to PostgreSQL") == true)
        // And it listens again.
        try admin.notify("fetchd_listen_b", payload: "5")
        #expect(waitForWakeUp(listener))
        #expect(listener.lastAnnouncedToken == 5)
    }

    @Test func backoffDoublesFromFiftyMillisecondsToFiveSeconds() {
        var backoff = PGBackoff()
        var delays: [Int] = []
        for _ in 0..<9 {
            delays.append(backoff.delayMilliseconds)
            backoff.failed()
        }
        #expect(delays == [50, 100, 200, 400, 800, 1600, 3200, 5000, 5000])
        backoff.reset()
        #expect(backoff.delayMilliseconds == 50)
    }
}
