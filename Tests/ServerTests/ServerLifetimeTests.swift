import JSONRPC
import Testing

@testable import Server

/// A server and the session over it go when their owner lets them go: the sinks they hand
/// each other (immediate output, the stream of a big cycle) hold neither (the fuzz target's
/// leak check found a cycle once).
@Suite struct ServerLifetimeTests {
    @Test func aServerAndItsSessionAreFreed() {
        weak var server: Server?
        weak var session: Session?
        do {
            let s = Server()
            let c = Session(handler: s, mode: .ndjson)
            c.receive(Array(#"{"jsonrpc":"2.0","id":1,"method":"server/ping"}"#.utf8) + [0x0A]) { _ in }
            s.close()
            server = s
            session = c
        }
        #expect(server == nil)
        #expect(session == nil)
    }
}
