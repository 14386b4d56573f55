import Foundation
import JSON
import JSONRPC
import Server
import Testing

@Suite struct TranscriptTests {
    static let directory = #filePath.components(separatedBy: "/Tests/")[0] + "/Tests/Transcripts"

    static var files: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(".jsonl") }
            .sorted()
    }

    @Test func thereAreTranscriptsForEveryArea() {
        let names = Self.files
        for area in [
            "lifecycle", "framing-lsp", "framing-ndjson", "batches", "parse-errors", "invalid-requests",
            "spec-examples",
            "store-", "context-", "controller-", "seed-",
        ] {
            #expect(names.contains { $0.hasPrefix(area) }, "no transcript for \(area)")
        }
    }

    @Test(arguments: files)
    func replaysWithoutADifference(_ file: String) throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.directory + "/" + file)))
        let transcript = try Transcript(parsing: bytes)
        #expect(
            transcript.steps.contains { if case .expect = $0.step { true } else { false } } || file.contains("exit"))
        let difference = TranscriptReplay.run(transcript)
        #expect(difference == nil, "\(difference.map(String.init(describing:)) ?? "")")
    }

    /// Every message fetchd writes in a transcript (responses, errors, notifications, batch
    /// arrays) carries only JSON-RPC 2.0's members; the replay above makes the recorded
    /// expectations exactly what the binary writes.
    @Test(arguments: files)
    func writesOnlyJSONRPCMembers(_ file: String) throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.directory + "/" + file)))
        for (line, step) in try Transcript(parsing: bytes).steps {
            guard case .expect(let message) = step else { continue }
            let messages: [JSON]
            if case .array(let items) = message { messages = items } else { messages = [message] }
            for m in messages {
                guard let object = m.objectValue else {
                    Issue.record("\(file):\(line): not an object")
                    continue
                }
                for problem in memberProblems(object) { Issue.record("\(file):\(line): \(problem)") }
            }
        }
    }

    @Test func memberProblemsAreFound() {
        let extra: JSON = ["jsonrpc": "2.0", "result": .null, "id": 1, "x-trace": "1"]
        let badError: JSON = ["jsonrpc": "2.0", "error": ["code": 1, "message": "m", "stack": "s"], "id": 1]
        let notification: JSON = ["jsonrpc": "2.0", "method": "m", "params": [:], "id": 2]
        #expect(memberProblems(extra.objectValue!) == ["member x-trace is not JSON-RPC 2.0's"])
        #expect(memberProblems(badError.objectValue!) == ["error member stack is not JSON-RPC 2.0's"])
        #expect(memberProblems(notification.objectValue!) == ["member id is not JSON-RPC 2.0's"])
    }

    func transcript(_ text: String) throws -> Transcript { try Transcript(parsing: Array(text.utf8)) }

    @Test func aWrongExpectationIsTheFirstDifference() throws {
        let t = try transcript(
            """
            {"send":{"jsonrpc":"2.0","method":"server/ping","id":1}}
            {"expect":{"jsonrpc":"2.0","result":{},"id":1}}
            {"send":{"jsonrpc":"2.0","method":"server/ping","id":2}}
            {"expect":{"jsonrpc":"2.0","result":{},"id":3}}
            """)
        let d = TranscriptReplay.run(t)
        #expect(d?.line == 4)
        #expect(d?.got == #"{"jsonrpc":"2.0","result":{},"id":2}"#)
    }

    @Test func missingAndExtraOutputAreDifferences() throws {
        let missing = try transcript(
            """
            {"send":{"jsonrpc":"2.0","method":"server/ping"}}
            {"expect":{"jsonrpc":"2.0","result":{},"id":1}}
            """)
        #expect(TranscriptReplay.run(missing)?.got == "nothing")
        let extra = try transcript(#"{"send":{"jsonrpc":"2.0","method":"server/ping","id":1}}"#)
        #expect(TranscriptReplay.run(extra)?.expected == "nothing more")
    }

    @Test func exitCodeIsChecked() throws {
        let t = try transcript(
            """
            {"send":{"jsonrpc":"2.0","method":"exit"}}
            {"exitCode":0}
            """)
        #expect(TranscriptReplay.run(t) == .init(line: 2, expected: "exit code 0", got: "exit code 1"))
    }

    @Test func malformedLinesAreRejectedWithTheirLineNumber() {
        #expect(throws: Transcript.FormatError.self) { try transcript("{\"send\":1}") }
        #expect(throws: Transcript.FormatError.self) { try transcript("{\"send\":{},\"expect\":{}}") }
        #expect(throws: Transcript.FormatError.self) { try transcript("\n{\"comment\":1}\n{\"framing\":\"xml\"}") }
    }
}
