import JSONRPC
import Server
import Testing

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
        let out = h.send([
            shutdown, "[" + exit + #",{"jsonrpc":"2.0","method":"server/ping","id":2}]"#,
            #"{"jsonrpc":"2.0","method":"server/ping","id":3}"#,
        ])
        #expect(out.map(\.serializedString) == [#"{"jsonrpc":"2.0","result":null,"id":1}"#])
    }

    /// `$/` notifications are accepted in every state (even after shutdown); the same names as
    /// requests are unknown methods, and a declared `$/` name keeps its own handler.
    @Test func dollarNotificationsAreIgnoredButNotDollarRequests() {
        let server = Server()
        for method in ["$/setTrace", "$/progress", "$/x"] {
            #expect(server.handle(Request(method: method, params: .byName(["value": "off"]))) == .success(.null))
            #expect(server.handle(Request(method: method, id: .integer(1))) == .failure(.methodNotFound(method)))
        }
        #expect(
            server.handle(Request(method: "$/cancelRequest", params: .byName([:]))).isFailure,
            "$/cancelRequest is declared: its params are still read")
        #expect(server.handle(Request(method: "other/notification")) == .failure(.methodNotFound("other/notification")))
        _ = server.handle(Request(method: "shutdown", id: .integer(2)))
        #expect(server.handle(Request(method: "$/setTrace")) == .success(.null))
        #expect(
            server.handle(Request(method: "initialized")).isFailure,
            "after shutdown other notifications are refused")
    }

    @Test func theDollarRuleIsDeclaredInTheMethodTable() {
        let table = Server().methods
        #expect(table.ignoredNotificationPrefixes.map(\.prefix) == ["$/"])
        #expect(table.ignoresNotification("$/setTrace"))
        #expect(!table.ignoresNotification("$/cancelRequest"), "declared on its own")
        #expect(!table.ignoresNotification("initialized") && !table.ignoresNotification("x$/y"))
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

extension Result {
    var isFailure: Bool { if case .failure = self { true } else { false } }
}
