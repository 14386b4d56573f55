import Foundation
import JSON
import Testing

@Suite(.serialized) struct EndToEndTests {
    static let initialize = #"{"jsonrpc":"2.0","method":"initialize","params":{"clientInfo":{"name":"e2e"}},"id":1}"#
    static let unknown = #"{"jsonrpc":"2.0","method":"no/such","id":2}"#
    static let shutdown = #"{"jsonrpc":"2.0","method":"shutdown","id":3}"#
    static let exit = #"{"jsonrpc":"2.0","method":"exit"}"#

    static func expectedReplies() -> [String] {
        [
            #"{"jsonrpc":"2.0","result":{"serverInfo":{"name":"fetchd","version":"0.1.0"},"protocolVersion":1,"capabilities":{"batch":true}},"id":1}"#,
            #"{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found","data":{"kind":"methodNotFound","method":"no/such"}},"id":2}"#,
            #"{"jsonrpc":"2.0","result":null,"id":3}"#,
        ]
    }

    @Test func ndjsonSession() throws {
        let r = try FetchdProcess.run(
            input: [Self.initialize, Self.unknown, Self.shutdown, Self.exit].joined(separator: "\n") + "\n")
        #expect(r.output == Self.expectedReplies().map { $0 + "\n" }.joined())
        #expect(r.status == 0)
    }

    @Test func lspSession() throws {
        let input = [Self.initialize, Self.unknown, Self.shutdown, Self.exit].map(lspFrame).joined()
        let r = try FetchdProcess.run(input: input)
        #expect(r.output == Self.expectedReplies().map(lspFrame).joined())
        #expect(r.status == 0)
    }

    @Test func forcedFramingIsUsed() throws {
        let r = try FetchdProcess.run(["--framing", "lsp"], input: lspFrame(Self.unknown))
        #expect(r.output == lspFrame(Self.expectedReplies()[1]))
    }

    @Test func exitWithoutShutdownIsOne() throws {
        #expect(try FetchdProcess.run(input: Self.exit + "\n").status == 1)
    }

    @Test func endOfInputFinishesPendingWorkAndExitsZero() throws {
        // The last line has no newline: still answered.
        let r = try FetchdProcess.run(input: Self.unknown + "\n" + #"{"jsonrpc":"2.0","method":"server/ping","id":9}"#)
        #expect(r.output.split(separator: "\n").count == 2)
        #expect(r.output.hasSuffix(#"{"jsonrpc":"2.0","result":{},"id":9}"# + "\n"))
        #expect(r.status == 0)
    }

    @Test func answersEachRequestBeforeTheNextArrives() throws {
        let p = try FetchdProcess()
        for i in 0..<5 {
            p.write(#"{"jsonrpc":"2.0","method":"server/echo","params":{"value":\#(i)},"id":\#(i)}"# + "\n")
            #expect(p.readLine() == #"{"jsonrpc":"2.0","result":\#(i),"id":\#(i)}"#)
        }
        p.closeInput()
        #expect(p.finish().status == 0)
    }

    @Test(arguments: ["TERM", "INT"])
    func signalsStopItCleanly(_ name: String) throws {
        let p = try FetchdProcess()
        p.write(#"{"jsonrpc":"2.0","method":"server/ping","id":1}"# + "\n")
        #expect(p.readLine() == #"{"jsonrpc":"2.0","result":{},"id":1}"#)
        let signal = name == "TERM" ? SIGTERM : SIGINT
        kill(p.process.processIdentifier, signal)
        let r = p.finish(timeout: 10)
        #expect(r.status == 128 + signal)
        #expect(p.process.terminationReason == .exit) // handled, not killed by the signal
    }

    @Test func stdoutCarriesProtocolBytesOnlyEvenWhenLoggingEverything() throws {
        let input = [
            Self.initialize, "garbage", Self.unknown, #"{"jsonrpc":"2.0","result":1,"id":"x"}"#, Self.shutdown,
            Self.exit,
        ]
        let r = try FetchdProcess.run(["--log-level", "trace"], input: input.joined(separator: "\n") + "\n")
        for line in r.output.split(separator: "\n") {
            #expect((try? JSON.parse(String(line))) != nil, "non-protocol line on stdout: \(line)")
        }
        #expect(r.output.split(separator: "\n").count == 4)
        #expect(r.stderr.contains("dropped a response"))
    }

    @Test func pipelinedRequestsAreAllAnsweredInOrder() throws {
        let n = 20_000
        var input = ""
        for i in 0..<n { input += #"{"jsonrpc":"2.0","method":"server/ping","id":\#(i)}"# + "\n" }
        let p = try FetchdProcess()
        // Write from another thread: fetchd's replies would otherwise fill the pipe first.
        let bytes = input
        let writer = Thread {
            p.write(bytes)
            p.closeInput()
        }
        writer.start()
        let r = p.finish()
        let lines = r.output.split(separator: "\n")
        #expect(lines.count == n)
        #expect(lines.last == #"{"jsonrpc":"2.0","result":{},"id":\#(n - 1)}"#)
        #expect(r.status == 0)
    }

    @Test func versionAndHelp() throws {
        #expect(try FetchdProcess.run(["--version"], input: "").output == "0.1.0\n")
        let help = try FetchdProcess.run(["--help"], input: "")
        #expect(help.output.contains("--framing"))
        #expect(help.output.contains("--store"))
        #expect(help.status == 0)
    }

    @Test(arguments: [
        ["--framing", "xml"], ["--store", "/tmp/x.sqlite"], ["--model", "/nonexistent/model.json"],
        ["--max-message-size", "0"], ["--log-level", "loud"],
    ])
    func badCommandLinesAreRefused(_ arguments: [String]) throws {
        let r = try FetchdProcess.run(arguments, input: "")
        #expect(r.status == 64)
        #expect(r.output.isEmpty)
        #expect(!r.stderr.isEmpty)
    }

    @Test func modelMustBeAJSONObject() throws {
        let path = NSTemporaryDirectory() + "fetchd-e2e-model-\(getpid()).json"
        try "[1,2]".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = try FetchdProcess.run(["--model", path], input: "")
        #expect(r.status == 64)
        #expect(r.stderr.contains("must hold a JSON object"))
    }

    @Test func recordsASessionThatReplaysAndCatchesAChange() throws {
        let path = NSTemporaryDirectory() + "fetchd-e2e-record-\(getpid()).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let input = [Self.initialize, "garbage", Self.unknown, Self.shutdown, Self.exit].map(lspFrame).joined()
        let served = try FetchdProcess.run(["--record", path], input: input)
        #expect(served.status == 0)
        let replay = try FetchdProcess.run(["replay", path], input: "")
        #expect(replay.status == 0)
        #expect(replay.output.isEmpty)

        let recorded = try String(contentsOfFile: path, encoding: .utf8)
        #expect(recorded.hasPrefix(#"{"framing":"lsp"}"#))
        #expect(recorded.hasSuffix(#"{"exitCode":0}"# + "\n"))
        try recorded.replacingOccurrences(
            of: #""kind":"methodNotFound","method":"no/such""#,
            with: #""kind":"methodNotFound","method":"no/other""#
        ).write(toFile: path, atomically: true, encoding: .utf8)
        let changed = try FetchdProcess.run(["replay", path], input: "")
        #expect(changed.status == 1)
        #expect(changed.output.contains("expected"))
    }

    static let model =
        #"{"entities":[{"name":"Contact","attributes":{"name":{"type":"string"},"age":{"type":"integer","default":0}}}]}"#

    @Test func storeAndModelOpenTheStoreAtStartUpAndSurviveSIGTERM() throws {
        let dir = NSTemporaryDirectory() + "fetchd-e2e-store-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let modelPath = dir + "/model.json"
        let storePath = dir + "/store.sqlite"
        try Self.model.write(toFile: modelPath, atomically: true, encoding: .utf8)

        let p = try FetchdProcess(["--store", storePath, "--model", modelPath])
        p.write(
            #"{"jsonrpc":"2.0","method":"context/insert","params":{"context":"main","entity":"Contact","values":{"name":"Ana"}},"id":1}"#
                + "\n")
        #expect(p.readLine()?.contains(#""name":"Ana""#) == true)
        p.write(#"{"jsonrpc":"2.0","method":"context/save","params":{"context":"main"},"id":2}"# + "\n")
        #expect(p.readLine() == #"{"jsonrpc":"2.0","result":{"inserted":1,"updated":0,"deleted":0},"id":2}"#)
        kill(p.process.processIdentifier, SIGTERM)
        #expect(p.finish().status == 128 + SIGTERM)

        let again = try FetchdProcess.run(
            ["--store", storePath, "--model", modelPath],
            input:
                #"{"jsonrpc":"2.0","method":"context/count","params":{"context":"main","request":{"entity":"Contact"}},"id":3}"#
                + "\n")
        #expect(again.output == #"{"jsonrpc":"2.0","result":{"count":1},"id":3}"# + "\n")
        #expect(again.status == 0)
    }

    @Test func anInvalidModelAtStartUpExitsOneWithTheReason() throws {
        let path = NSTemporaryDirectory() + "fetchd-e2e-badmodel-\(getpid()).json"
        try #"{"entities":[{"name":"X","attributes":{"a":{"type":"nope"}}}]}"#.write(
            toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = try FetchdProcess.run(["--model", path], input: "")
        #expect(r.status == 1)
        #expect(r.output.isEmpty)
        #expect(r.stderr.contains("invalidModel"))
    }
}
