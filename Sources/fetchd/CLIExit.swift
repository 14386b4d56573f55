import ArgumentParser
import JSON
import JSONRPC

#if canImport(Glibc)
    import Glibc
#endif

/// The exit codes of `query`, `watch` and `exec` (protocol.md §1.7). Stable: scripts test them.
enum CLIExit {
    static let ok: Int32 = 0
    /// `exec`: a request failed. `query`/`watch`: the store failed while reading.
    static let requestFailed: Int32 = 1
    /// A bad command line, or a fetch request it describes that the server refuses (a bad
    /// predicate, sort, key or entity): ArgumentParser's code for usage errors (sysexits' EX_USAGE).
    static let usage: Int32 = 64
    /// The store cannot be opened: not a fetchd store, an invalid model, a refused migration (EX_DATAERR).
    static let badStore: Int32 = 65
    /// No such store file, or no such `exec` file (EX_NOINPUT).
    static let noInput: Int32 = 66

    /// The discussion `fetchd --help` and each subcommand's help show.
    static let summary = """
        Exit codes of query, watch, exec and mcp: 0 ok; 1 a request failed (exec) or the store failed; \
        64 bad command line, predicate, sort, key or entity (the server's error message on stderr); \
        65 the store cannot be opened (not a fetchd store, invalid model, refused migration); \
        66 no such store or input file; 128+N stopped by signal N (130 SIGINT, 143 SIGTERM). See protocol.md §1.7.
        """

    /// Engine errors about the request itself (§3.2: -32602, unknownEntity, unknownKey) are
    /// usage errors on the command line; anything else is a failure of the store.
    static func code(forRequestError error: RPCError) -> Int32 {
        switch error.code {
        case RPCError.invalidParamsCode, -32020, -32021: return usage
        default: return requestFailed
        }
    }

    /// Prints the server's error as the wire carries it: its message, then the error object
    /// on one line (for scripts), and exits with `code`.
    static func fail(_ command: String, _ error: RPCError, code: Int32) -> ExitCode {
        Stderr.line("fetchd \(command): \(error.message)")
        Stderr.line(error.json.serializedString)
        return ExitCode(code)
    }
}

/// Plain lines to stderr (the subcommands print no log lines).
enum Stderr {
    static func line(_ text: String) {
        let bytes = Array((text + "\n").utf8)
        bytes.withUnsafeBytes { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }
}
