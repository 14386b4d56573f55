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

    @Test func closeHooksRunOnce() {
        let server = Server()
        var closed = 0
        server.onClose { closed += 1 }
        server.close()
        server.close()
        #expect(closed == 1)
    }

    @Test func sharedStateIsOnePerType() {
        final class Engine { var n = 0 }
        let server = Server()
        server.shared(Engine.self) { Engine() }.n = 5
        #expect(server.shared(Engine.self) { Engine() }.n == 5)
    }
}
