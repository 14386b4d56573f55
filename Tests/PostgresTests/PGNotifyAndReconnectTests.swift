import Postgres
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite(.serialized) struct PGNotifyAndReconnectTests {
    @Test func listenReceivesNotificationsAfterCommitOnly() throws {
        let listener = try PGTestDatabase.connect()
        let sender = try PGTestDatabase.connect()
        try listener.listen("wrapper_chan")
        try sender.transaction {
            try sender.notify("wrapper_chan", payload: "42")
            // Not delivered before the sender commits.
            #expect(!listener.waitForInput(timeoutMilliseconds: 50))
        }
        #expect(listener.waitForInput(timeoutMilliseconds: 5000))
        try listener.consumeInput()
        let received = listener.notifications()
        #expect(received == [PGNotification(channel: "wrapper_chan", payload: "42", senderPID: sender.backendPID)])
        #expect(listener.notifications().isEmpty)
    }

    @Test func aTerminatedBackendIsReportedBrokenAndResetReconnects() throws {
        let victim = try PGTestDatabase.connect()
        let killer = try PGTestDatabase.connect()
        let oldPID = victim.backendPID
        try killer.exec("SELECT pg_terminate_backend($1::int)", [.int(Int64(oldPID))])
        do {
            try victim.exec("SELECT 1")
            Issue.record("query on a terminated backend succeeded")
        } catch {
            #expect(error.connectionBroken)
        }
        #expect(!victim.isConnected)
        try victim.reset()
        #expect(victim.isConnected)
        #expect(victim.backendPID != oldPID)
        #expect(try victim.exec("SELECT 1").rows == [["1"]])
    }

    @Test func connectingToNothingFailsAsBroken() throws {
        let url = try PGTestDatabase.url
        let bad = url.replacingOccurrences(of: "host=", with: "host=/nonexistent")
        #expect(throws: PGError.self) { try PGConnection(bad) }
        do {
            _ = try PGConnection(bad)
        } catch {
            #expect(error.connectionBroken)
            #expect(error.sqlState == nil)
        }
    }
}

@Suite(.serialized) struct PGReconnectIfBrokenTests {
    @Test func requestsFailFastDuringTheBackoffThenReconnect() throws {
        let db = try PGTestDatabase.connect()
        let admin = try PGTestDatabase.connect()
        #expect(try db.reconnectIfBroken() == false)
        try admin.exec("SELECT pg_terminate_backend($1::int)", [.int(Int64(db.backendPID))])
        #expect(throws: PGError.self) { try db.exec("SELECT 1") }
        // Noticed: the first attempt waits 50 ms; meanwhile every call fails at once.
        for _ in 0..<2 {
            do {
                try db.reconnectIfBroken()
                Issue.record("reconnected before the backoff allowed it")
            } catch {
                #expect(error.connectionBroken)
            }
        }
        let deadline = ContinuousClock.now + .seconds(10)
        var reconnected = false
        while !reconnected, ContinuousClock.now < deadline {
            reconnected = (try? db.reconnectIfBroken()) == true
            if !reconnected { usleep(10_000) }
        }
        #expect(reconnected)
        #expect(try db.exec("SELECT 7").int64(0, 0) == 7)
    }
}
