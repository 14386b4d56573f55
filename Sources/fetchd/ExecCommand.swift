import ArgumentParser
import JSON
import JSONRPC
import Logging
import Server

#if canImport(Glibc)
    import Glibc
#endif

/// `fetchd exec FILE`: the server's session over a file of requests instead of a client
/// (protocol.md §1.7). Output is exactly what the server would write (NDJSON); the exit code
/// tells whether every request succeeded.
struct ExecCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "exec",
        abstract: "Run a file of JSON-RPC requests (NDJSON; - for stdin) and print the responses and notifications.",
        discussion: CLIExit.summary)

    @Argument(help: "A file of JSON-RPC messages, one per line, or - for stdin.")
    var file: String

    @OptionGroup var storeOptions: StoreOptions

    @Flag(help: "Show on stderr how far the file has come and the step of a long request under way.")
    var progress = false

    func run() throws {
        MallocTuning.apply()
        let input = file == "-" ? STDIN_FILENO : open(file, O_RDONLY)
        guard input >= 0 else {
            Stderr.line("fetchd exec: cannot read \(file)")
            throw ExitCode(CLIExit.noInput)
        }
        let server = StoreOptions.makeServer("exec")
        try storeOptions.open(server, command: "exec", create: true)
        let session = Session(handler: server, mode: .ndjson, logger: StoreOptions.logger("exec"))
        let failures = FailureCount()
        session.onWrite = { frame, _ in failures.note(frame) }
        let shown = progress ? ExecProgress(input: input) : nil
        if let shown {
            session.onReceive = { event in
                if case .message(let bytes) = event { shown.received(bytes.count) }
            }
            server.onUntokenedProgress = { shown.server($0) }
        }
        defer { shown?.finish() }
        Signals.install()
        let end = StdioTransport(
            input: input, output: STDOUT_FILENO, interrupted: { Signals.caught != 0 },
            logger: StoreOptions.logger("transport")
        ).run(session)
        server.close()
        switch end {
        case .interrupted: throw ExitCode(128 + Signals.caught)
        case .exit(let code) where code != 0: throw ExitCode(code)
        default: if failures.count > 0 { throw ExitCode(CLIExit.requestFailed) }
        }
    }
}

/// Counts the error responses among the frames written (a batch counts once per failed element).
final class FailureCount {
    private(set) var count = 0

    func note(_ frame: Frame) {
        guard let message = try? JSON.parse(Array(frame.contents)) else { return }
        switch message {
        case .object(let o) where o["error"] != nil: count += 1
        case .array(let responses): count += responses.filter { $0["error"] != nil }.count
        default: break
        }
    }
}
