import ArgumentParser
import JSON
import JSONRPC
import Logging
import Server

#if canImport(Glibc)
    import Glibc
#endif

@main
struct FetchdCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetchd",
        abstract: "NSFetchedResultsController as a JSON-RPC 2.0 backend on stdin/stdout.",
        discussion: "Logs go to stderr; stdout carries protocol bytes only. The protocol is protocol.md"
            + " (installed in share/doc/fetchd/ beside the OpenRPC document, openrpc.json).\n\n"
            + CLIExit.summary,
        version: FetchdVersion.current,
        subcommands: [
            ReplayCommand.self, DescribeCommand.self, QueryCommand.self, WatchCommand.self,
            ExecCommand.self, MCPCommand.self,
        ])

    /// `--store/--model`, one group shared with the subcommands (which get these values).
    @OptionGroup var storeOptions: StoreOptions
    var store: String? { storeOptions.store }
    var model: String? { storeOptions.model }

    @Option(help: "Message framing: auto (from the first byte), ndjson or lsp.")
    var framing: FramingMode = .auto

    @Option(help: "stderr log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level = .warning

    @Option(help: "Largest accepted message, in bytes.")
    var maxMessageSize: Int = FramingLimits.defaultMaxMessageSize

    @OptionGroup var watchOptions: WatchOptions

    @Option(help: "Write the session served as a transcript (JSON Lines; see Tests/Transcripts/README.md).")
    var record: String?

    @Option(
        help: """
            Write every message in and out to this file as it happens, each with its time \
            (JSON Lines: {"time":..., "in" or "out": message}).
            """)
    var trace: String?

    func validate() throws {
        if maxMessageSize < 1 { throw ValidationError("--max-message-size must be positive") }
        if let model { _ = try Self.loadModel(model) }
    }

    func run() throws {
        MallocTuning.apply()
        // The real stdout is kept for protocol bytes; fd 1 becomes stderr so a stray print
        // can never corrupt the stream.
        let protocolOutput = dup(STDOUT_FILENO)
        dup2(STDERR_FILENO, STDOUT_FILENO)
        signal(SIGPIPE, SIG_IGN)

        let level = logLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "fetchd")
        let server = Server(
            configuration: Server.Configuration(watch: watchOptions.watch), logger: Logger(label: "fetchd.server"))

        // --store alone opens an existing store with the model it records (store/open's rule);
        // a file that is not there is a bad command line, as `--store` without `--model` was.
        if let store, model == nil, !StoreLocation.isServerURL(store), access(store, F_OK) != 0 {
            throw ValidationError("--store \(store) does not exist yet: a new store needs --model")
        }
        if store != nil || model != nil {
            try openAtStartup(server, model: model.map(Self.loadModel), logger: logger)
        }
        if isatty(STDIN_FILENO) != 0 {
            // Someone typed `fetchd` in a terminal: say what it is waiting for.
            Stderr.line(Self.terminalHint)
        }

        Signals.install()
        let session = Session(
            handler: server, mode: framing,
            limits: FramingLimits(maxMessageSize: maxMessageSize),
            logger: Logger(label: "fetchd.jsonrpc"))
        let recorder = try Self.tap(TranscriptRecorder.self, record, "transcript", session, logger)
        let tracer = try Self.tap(MessageTrace.self, trace, "trace", session, logger)
        defer { withExtendedLifetime(tracer) {} }
        let end = StdioTransport(
            input: STDIN_FILENO, output: protocolOutput, interrupted: { Signals.caught != 0 },
            logger: Logger(label: "fetchd.transport")
        ).run(session)
        server.close()
        let status: Int32
        switch end {
        case .endOfInput, .outputClosed: status = 0
        case .exit(let code): status = code
        case .interrupted:
            logger.notice("stopped by signal \(Signals.caught)")
            status = 128 + Signals.caught
        }
        recorder?.recordExit(status)
        throw ExitCode(status)
    }

    static let terminalHint = """
        fetchd \(FetchdVersion.current): a JSON-RPC 2.0 server on stdin/stdout, waiting for requests (one JSON \
        object per line). Try {"jsonrpc":"2.0","method":"server/echo","params":{"value":1},"id":1}; \
        Ctrl-D ends. For a store from the shell: fetchd query, watch, exec (fetchd --help).
        """

    /// A file watching the session (`--record`, `--trace`), when asked for; one that cannot be
    /// written ends fetchd before it reads anything.
    private static func tap<T: SessionTap>(
        _ type: T.Type, _ path: String?, _ what: String, _ session: Session, _ logger: Logger
    ) throws -> T? {
        guard let path else { return nil }
        guard let opened = T(path: path) else {
            logger.critical("cannot write the \(what) \(path)")
            throw ExitCode(1)
        }
        opened.attach(to: session)
        return opened
    }

    /// The `--store/--model` hook: opens the store through the `store/open` method, exactly as
    /// a client would, so both paths share one implementation.
    private func openAtStartup(_ server: Server, model: JSON?, logger: Logger) throws {
        let params = StoreLocation.openParams(store: store ?? ":memory:", model: model)
        switch server.call(StoreDeclarations.open.name, params) {
        case .success:
            break
        case .failure(let error):
            logger.critical("cannot open the store: \(error)")
            throw ExitCode(1)
        }
    }

    static func loadModel(_ path: String) throws -> JSON {
        guard let bytes = readFile(path) else { throw ValidationError("cannot read --model file \(path)") }
        let json: JSON
        do {
            json = try JSON.parse(bytes)
        } catch {
            throw ValidationError("--model file \(path) is not JSON: \(error)")
        }
        guard case .object = json else { throw ValidationError("--model file \(path) must hold a JSON object") }
        return json
    }

    static func readFile(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 { if errno == EINTR { continue } else { return nil } }
            if n == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<n])
        }
    }
}

extension FramingMode: ExpressibleByArgument {}
// swift-format-ignore: AvoidRetroactiveConformances
// `--log-level` parses straight into swift-log's own level type; nothing else conforms it.
extension Logger.Level: @retroactive ExpressibleByArgument {}
