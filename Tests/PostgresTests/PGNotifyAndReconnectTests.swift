import Postgres
import Testing

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
