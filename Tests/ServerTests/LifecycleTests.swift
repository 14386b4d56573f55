import Testing
import JSONRPC
import Server

@Suite struct LifecycleTests {
    let exit = #"{"jsonrpc":"2.0","method":"exit"}"#
    let shutdown = #"{"jsonrpc":"2.0","method":"shutdown","id":1}"#

    @Test func exitAfterShutdownIsZero() {
        let h = Harness(.lsp)
        h.send([shutdown, exit])
        #expect(h.server.exitCode == 0)
        #expect(h.session.isFinished)
    }

    @Test func exitWithoutShutdownIsOne() {
        let h = Harness(.ndjson)
        h.send([exit])
        #expect(h.server.exitCode == 1)
    }

    @Test func nothingRunsAfterExit() {
        let h = Harness(.ndjson)
        let out = h.send([shutdown, "[" + exit + #",{"jsonrpc":"2.0","method":"server/ping","id":2}]"#,
                          #"{"jsonrpc":"2.0","method":"server/ping","id":3}"#])
        #expect(out.map(\.serializedString) == [#"{"jsonrpc":"2.0","result":null,"id":1}"#])
    }

    @Test func observersHearTheCloseOnce() {
        final class Closer: ServerObserver {
            var closed = 0
            func serverWillClose(_ server: Server) { closed += 1 }
        }
        let server = Server()
        let closer = Closer()
        server.addObserver(closer)
        server.close()
        server.close()
        #expect(closer.closed == 1)
    }
}
