import ArgumentParser
import JSON
import JSONRPC
import Logging
import Server

#if canImport(Glibc)
    import Glibc
#endif

/// `--store PATH [--model FILE]` for `query`, `watch` and `exec`, opened through `store/open`
/// as the server's own options are. Without `--model` the store must exist and is opened with
/// the model it records (protocol.md §5).
struct StoreOptions: ParsableArguments {
    @Option(
        help: """
            SQLite store file, or a PostgreSQL server's URL (postgresql://...; schema=NAME picks \
            the schema, fetchd by default). The server and exec create it with --model; query and \
            watch need an existing one.
            """)
    var store: String?

    @Option(
        help: """
            JSON model file. The server opens the store with it (in memory without --store); \
            query, watch and exec default to the model the store records.
            """)
    var model: String?

    /// A server for a subcommand; its logs go to stderr, warnings and above only.
    /// `watchesFromOpen`: other processes' commits are merged from the open on, not only once
    /// a request on stdin was answered (`watch` prints its first rows itself).
    static func makeServer(_ label: String, watch: WatchMode = .auto, watchesFromOpen: Bool = false) -> Server {
        Server(
            configuration: Server.Configuration(watch: watch, watchesFromOpen: watchesFromOpen),
            logger: logger(label))
    }

    /// Every logger of a subcommand is made here: swift-log's default handler writes to
    /// stdout, which carries the subcommand's output.
    static func logger(_ label: String) -> Logger {
        Logger(
            label: "fetchd.\(label)",
            factory: { name in
                var handler = StreamLogHandler.standardError(label: name)
                handler.logLevel = .warning
                return handler
            })
    }

    /// Opens the store on `server`. `create`: a missing file is created (exec with --model);
    /// otherwise it is exit 66. A store that will not open is exit 65, its error on stderr.
    /// Returns the model the store was opened with (nil when none was opened).
    @discardableResult
    func open(_ server: Server, command: String, create: Bool) throws -> JSON? {
        guard let store else {
            guard let model else { return nil } // exec without a store: the file may call store/open
            let json = try FetchdCommand.loadModel(model)
            try call(server, command: command, model: json, path: ":memory:")
            return json
        }
        let exists = StoreLocation.isServerURL(store) || access(store, F_OK) == 0
        if !exists, !(create && model != nil) {
            Stderr.line("fetchd \(command): no such store: \(store)")
            throw ExitCode(CLIExit.noInput)
        }
        let modelJSON: JSON
        if let model {
            modelJSON = try FetchdCommand.loadModel(model)
        } else {
            switch Server.recordedModel(path: store) {
            case .success(let json): modelJSON = json
            case .failure(let error): throw CLIExit.fail(command, error, code: CLIExit.badStore)
            }
        }
        try call(server, command: command, model: modelJSON, path: store)
        return modelJSON
    }

    private func call(_ server: Server, command: String, model: JSON, path: String) throws {
        let params = StoreLocation.openParams(store: path, model: model)
        if case .failure(let error) = server.call(StoreDeclarations.open.name, params) {
            throw CLIExit.fail(command, error, code: CLIExit.badStore)
        }
    }
}
