import Foundation
import JSON
import TestSupport
import Testing

/// Seeing what fetchd does: `--log-level debug` says one line per request, `--trace FILE`
/// writes every message with its time, a bare `fetchd` on a terminal says what it waits for,
/// and `--store` alone opens an existing store with the model it records.
@Suite struct TracingTests {
    static let session = [
        #"{"jsonrpc":"2.0","method":"initialize","id":1}"#,
        #"[{"jsonrpc":"2.0","method":"server/echo","params":{"value":"é"},"id":2},{"jsonrpc":"2.0","method":"no/such","id":"x"}]"#,
        "not json",
        #"{"jsonrpc":"2.0","method":"shutdown","id":3}"#,
        #"{"jsonrpc":"2.0","method":"exit"}"#,
    ]

    @Test func debugLogsOneLinePerRequest() throws {
        let (_, stderr, status) = try FetchdProcess.run(
            ["--log-level", "debug"], input: Self.session.joined(separator: "\n") + "\n")
        #expect(status == 0)
        let lines = stderr.split(separator: "\n").map(String.init).filter { $0.contains(" ms, ") }
        let patterns = [
            #"initialize id 1: [0-9.]+ ms, 46 B in, [0-9]+ B out$"#,
            #"server/echo id 2 \(batch 1/2\): [0-9.]+ ms, 119 B in, [0-9]+ B out$"#,
            #"no/such id "x" \(batch 2/2\): [0-9.]+ ms, 119 B in, [0-9]+ B out error methodNotFound$"#,
            #"shutdown id 3: [0-9.]+ ms, 44 B in, [0-9]+ B out$"#,
        ]
        #expect(lines.count == patterns.count, "\(stderr)")
        for (line, pattern) in zip(lines, patterns) {
            #expect(line.range(of: pattern, options: .regularExpression) != nil, "\(line) !~ \(pattern)")
        }
    }

    @Test func traceWritesEveryMessageWithItsTime() throws {
        let dir = TempDir()
        let trace = dir.file("trace.jsonl")
        let (output, stderr, status) = try FetchdProcess.run(
            ["--trace", trace], input: Self.session.joined(separator: "\n") + "\n")
        #expect(status == 0, "\(stderr)")
        let entries = try #require(String(data: try Data(contentsOf: URL(fileURLWithPath: trace)), encoding: .utf8))
            .split(separator: "\n").map { try JSON.parse(Array($0.utf8)) }
        let kinds = entries.map { entry in ["in", "inText", "out"].first { entry[$0] != nil } ?? "?" }
        #expect(kinds == ["in", "out", "in", "out", "inText", "out", "in", "out", "in"])
        var last = ""
        for entry in entries {
            let time = try #require(entry["time"]?.stringValue)
            #expect(time.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$"#, options: .regularExpression) != nil)
            #expect(time >= last)
            last = time
        }
        // What went out is what the client read, message for message.
        let written = try output.split(separator: "\n").map { try JSON.parse(Array($0.utf8)) }
        #expect(entries.compactMap { $0["out"] } == written)
        #expect(entries[2]["in"]?.arrayValue?.count == 2)
        #expect(entries[4]["inText"] == "not json")
    }

    @Test func aTerminalGetsAHintAndAPipeDoesNot() throws {
        let piped = try FetchdProcess.run([], input: #"{"jsonrpc":"2.0","method":"exit"}"# + "\n")
        #expect(piped.stderr.isEmpty)
        // A pseudo-terminal as stdin, as when someone types `fetchd` in a shell (Python's pty
        // module opens it; its stderr is what fetchd wrote to stderr).
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-c", Self.onATerminal, FetchdProcess.binary]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(text.hasPrefix("fetchd "), "\(text)")
        #expect(text.contains("a JSON-RPC 2.0 server on stdin/stdout, waiting for requests"), "\(text)")
        #expect(p.terminationStatus == 0, "\(text)")
    }

    static let onATerminal = """
        import os, pty, subprocess, sys
        primary, terminal = pty.openpty()
        p = subprocess.Popen([sys.argv[1]], stdin=terminal, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        os.close(terminal)
        os.write(primary, b'{"jsonrpc":"2.0","method":"shutdown","id":1}\\n{"jsonrpc":"2.0","method":"exit"}\\n')
        out, err = p.communicate(timeout=20)
        sys.stdout.write(err.decode())
        sys.exit(p.returncode)
        """

    @Test func storeAloneOpensTheRecordedModel() throws {
        let store = try CLIStore()
        let (output, stderr, status) = try FetchdProcess.run(
            ["--store", store.path],
            input: CLIStore.request(1, "context/count", #"{"context":"main","request":{"entity":"Contact"}}"#) + "\n")
        #expect(status == 0, "\(stderr)")
        #expect(output == #"{"jsonrpc":"2.0","result":{"count":3},"id":1}"# + "\n")
    }
}
