import ArgumentParser
import JSONRPC
import Server

#if canImport(Glibc)
    import Glibc
#endif

/// `fetchd mcp`: the same server speaking the Model Context Protocol on stdin/stdout (NDJSON,
/// MCP's stdio transport), for assistants that spawn MCP servers (protocol.md §15).
struct MCPCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mcp",
        abstract: "Serve the store as a Model Context Protocol server on stdin/stdout.",
        discussion: """
            Tools query and change the store (describe_model, fetch, count, aggregate, insert, update, \
            delete, save, history, open_controller, close_controller); each controller opened is a \
            resource, fetchd://controller/NAME, whose subscribers are told when its rows change, by \
            this session or another process. Speaks MCP 2026-07-28 (server/discover, \
            subscriptions/listen) and 2025-11-25 (initialize, resources/subscribe). Runs until stdin \
            ends or SIGINT/SIGTERM. \(CLIExit.summary)
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Flag(help: "Refuse the tools that change data (insert, update, delete, save).")
    var readOnly = false

    @Option(help: "The most rows one answer carries; a cursor asks for the rest.")
    var maxRows = 100

    @OptionGroup var watchOptions: WatchOptions

    func validate() throws {
        if storeOptions.store == nil { throw ValidationError("mcp needs --store") }
        if maxRows < 1 { throw ValidationError("--max-rows must be positive") }
    }

    func run() throws {
        MallocTuning.apply()
        // Protocol bytes only on the real stdout, as for the JSON-RPC server.
        let protocolOutput = dup(STDOUT_FILENO)
        dup2(STDERR_FILENO, STDOUT_FILENO)
        signal(SIGPIPE, SIG_IGN)
        // The watch starts at once: an assistant may subscribe before it asks anything else.
        let server = StoreOptions.makeServer("mcp", watch: watchOptions.watch, watchesFromOpen: true)
        defer { server.close() }
        // --read-only creates no file; an in-memory store is made either way.
        try storeOptions.open(server, command: "mcp", create: !readOnly || storeOptions.store == ":memory:")
        let handler = MCPHandler(server: server, configuration: .init(readOnly: readOnly, maxRows: maxRows))
        Signals.install()
        let session = Session(handler: handler, mode: .ndjson, logger: StoreOptions.logger("mcp"))
        let end = StdioTransport(
            input: STDIN_FILENO, output: protocolOutput, interrupted: { Signals.caught != 0 },
            logger: StoreOptions.logger("transport")
        ).run(session)
        switch end {
        case .endOfInput, .outputClosed, .exit: return
        case .interrupted: throw ExitCode(128 + Signals.caught)
        }
    }
}
