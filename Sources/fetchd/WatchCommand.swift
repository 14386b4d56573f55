import ArgumentParser
import JSON
import JSONRPC
import Logging
import Server

/// `fetchd watch`: a controller on the store's `main` context, printed as it changes
/// (protocol.md §1.7). Requests on stdin change the store as a client's would.
struct WatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print a controller's rows, then one line per change cycle, until SIGINT or SIGTERM.",
        discussion: """
            Like tail -f, it runs until it is stopped, whatever its stdin is. Commits by other \
            processes (another fetchd, any SQLite client) are merged as they happen and printed like \
            any other cycle (see --watch). With --stdin, JSON-RPC requests on stdin (NDJSON) run \
            against the same store, as from a client; the controller is named "watch" on context \
            "main". Responses are not printed; a failed one goes to stderr. The end of that input \
            only stops the reading. \(CLIExit.summary)
            """)

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var fetch: FetchOptions

    @Option(help: "Sections by this key path (sectionNameKeyPath).")
    var section: String?

    @Option(help: "ndjson (cycle 0: the rows; then one object per change cycle) or table.")
    var format: WatchFormat = .ndjson

    @OptionGroup var watchOptions: WatchOptions

    @Flag(help: "Read JSON-RPC requests (NDJSON) from stdin and run them against the store.")
    var stdin = false

    func validate() throws {
        if storeOptions.store == nil { throw ValidationError("watch needs --store") }
    }

    func run() throws {
        MallocTuning.apply()
        let server = StoreOptions.makeServer("watch", watch: watchOptions.watch, watchesFromOpen: true)
        defer { server.close() }
        let model = try storeOptions.open(server, command: "watch", create: false)
        var params: JSONObject = ["context": "main", "name": .string(WatchOutput.controller), "request": fetch.request]
        if let section { params["sectionNameKeyPath"] = .string(section) }
        if let keys = fetch.keyList { params["notify"] = ["keys": .array(keys.map(JSON.string))] }
        if case .failure(let error) = server.call(ControllerDeclarations.create.name, .object(params)) {
            throw CLIExit.fail("watch", error, code: CLIExit.code(forRequestError: error))
        }
        let columns = Columns.of(entity: fetch.entity, keys: fetch.keyList, model: model)
        let output = WatchOutput(
            format: format, columns: columns,
            server: server, sectioned: section != nil, keys: fetch.keyList)
        // Before cycle 0 is out: a signal right after it still closes the store cleanly (143).
        Signals.install()
        try output.printCurrent()
        let session = Session(handler: server, mode: .ndjson, logger: StoreOptions.logger("watch"))
        var failure: Error?
        let end = WatchLoop(server: server, session: session, readsInput: stdin).run { messages in
            do { return try output.consume(messages) } catch {
                failure = error
                return false
            }
        }
        if let failure { throw failure }
        switch end {
        case .endOfInput: return
        case .exit(let code): throw ExitCode(code)
        case .interrupted: throw ExitCode(128 + Signals.caught)
        }
    }
}

/// `watch --format`: NDJSON cycles, or a table redrawn after each.
enum WatchFormat: String, ExpressibleByArgument, CaseIterable {
    case ndjson
    case table
}
