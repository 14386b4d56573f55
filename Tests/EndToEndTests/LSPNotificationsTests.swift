import Foundation
import Testing

/// An editor's LSP lifecycle against the binary at `--log-level debug`: `initialized` and the
/// `$/` notifications (protocol.md §2) are accepted without a word on stderr, while a `$/` name
/// sent as a request is still answered -32601.
@Suite struct LSPNotificationsTests {
    static let quiet = [
        #"{"jsonrpc":"2.0","method":"initialize","params":{"clientInfo":{"name":"editor"}},"id":1}"#,
        #"{"jsonrpc":"2.0","method":"initialized","params":[]}"#,
        #"{"jsonrpc":"2.0","method":"initialized","params":{}}"#,
        #"{"jsonrpc":"2.0","method":"$/setTrace","params":{"value":"verbose"}}"#,
        #"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}"#,
        #"{"jsonrpc":"2.0","method":"$/progress","params":{"token":"t","value":{"kind":"end"}}}"#,
        #"{"jsonrpc":"2.0","method":"$/logTrace","params":{"message":"x"}}"#,
        #"{"jsonrpc":"2.0","method":"$/anything/else"}"#,
        #"{"jsonrpc":"2.0","method":"$/setTrace","params":{"value":"off"},"id":2}"#,
        #"{"jsonrpc":"2.0","method":"shutdown","id":3}"#,
        #"{"jsonrpc":"2.0","method":"$/setTrace","params":{"value":"off"}}"#,
        #"{"jsonrpc":"2.0","method":"exit"}"#,
    ]

    @Test func dollarNotificationsLeaveNoLogLine() throws {
        let r = try FetchdProcess.run(["--log-level", "debug"], input: Self.quiet.map(lspFrame).joined())
        #expect(
            r.output
                == [
                    #"{"jsonrpc":"2.0","result":{"serverInfo":{"name":"fetchd","version":"0.1.0"},"protocolVersion":1,"#
                        + #""capabilities":{"batch":true}},"id":1}"#,
                    #"{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found","#
                        + #""data":{"kind":"methodNotFound","method":"$/setTrace"}},"id":2}"#,
                    #"{"jsonrpc":"2.0","result":null,"id":3}"#,
                ].map(lspFrame).joined())
        #expect(r.status == 0)
        // Only the client's name is logged (info), besides debug's line per request (with an
        // id); no notification is reported as failed.
        let lines = r.stderr.split(separator: "\n").filter { !$0.contains(" B in, ") }
        #expect(lines.count == 1 && lines[0].contains("client: editor"), "\(r.stderr)")
    }

    /// The same log level does report an unknown notification outside `$/`, so the quiet above
    /// is the rule at work, not a silent log.
    @Test func otherUnknownNotificationsAreStillLoggedAtDebug() throws {
        let input = [#"{"jsonrpc":"2.0","method":"workspace/didChangeConfiguration","params":{}}"#]
        let r = try FetchdProcess.run(["--log-level", "debug"], input: input.map(lspFrame).joined())
        #expect(r.output.isEmpty)
        #expect(r.stderr.contains("notification workspace/didChangeConfiguration failed: -32601"), "\(r.stderr)")
    }
}
