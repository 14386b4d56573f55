import Foundation
import JSON
import Testing

/// `fetchd exec`: the server's output for a file of requests, exit 1 when one failed.
@Suite struct ExecCommandTests {
    @Test func everyRequestSucceedingExits0() throws {
        let store = try CLIStore()
        let file = store.dir.file("requests.ndjson")
        let request = CLIStore.insert(#"{"name":"Dan","age":20}"#, id: 1) + "\n"
        try request.write(toFile: file, atomically: true, encoding: .utf8)
        let (output, stderr, status) = try FetchdProcess.run(["exec", file, "--store", store.path], input: "")
        #expect(status == 0, "\(stderr)")
        let object = #"{"id":"Contact/4","name":"Dan","age":20,"city":null}"#
        #expect(output == #"{"jsonrpc":"2.0","result":{"object":\#(object)},"id":1}"# + "\n")
    }

    @Test func aFailingRequestExits1AfterTheRest() throws {
        let store = try CLIStore()
        let lines = [
            CLIStore.request(1, "context/get", #"{"context":"main","ids":["Contact/9"]}"#),
            CLIStore.request(2, "context/count", #"{"context":"main","request":{"entity":"Contact"}}"#),
        ]
        let (output, _, status) = try FetchdProcess.run(
            ["exec", "-", "--store", store.path],
            input: lines.joined(separator: "\n"))
        #expect(status == 1)
        let replies = try output.split(separator: "\n").map { try JSON.parse(Array($0.utf8)) }
        #expect(replies.count == 2)
        #expect(replies.first?["error"]?["data"]?["kind"] == "unknownObject")
        #expect(replies.last?["result"] == ["count": 3])
    }

    /// stdout carries the server's messages only: what the session logs (here, a response
    /// sent by the client, dropped at `notice`) goes to stderr, if anywhere.
    @Test func stdoutCarriesOnlyTheServersMessages() throws {
        let store = try CLIStore()
        let lines = [
            #"{"jsonrpc":"2.0","result":1,"id":9}"#,
            CLIStore.request(1, "server/ping", "{}"),
        ]
        let (output, stderr, status) = try FetchdProcess.run(
            ["exec", "-", "--store", store.path],
            input: lines.joined(separator: "\n") + "\n")
        #expect(status == 0, "\(stderr)")
        #expect(output == #"{"jsonrpc":"2.0","result":{},"id":1}"# + "\n")
    }

    @Test func aMissingFileExits66() throws {
        let store = try CLIStore()
        let missing = store.dir.file("none.ndjson")
        let (_, stderr, status) = try FetchdProcess.run(["exec", missing, "--store", store.path], input: "")
        #expect(status == 66)
        #expect(stderr.contains("cannot read"))
    }

    /// `--progress`: how far the file has come and the long request's steps on stderr (lines,
    /// off a terminal); stdout is exactly what it is without it (no $/progress there).
    @Test func progressGoesToStderrAndLeavesStdoutAlone() throws {
        let store = try CLIStore()
        let file = store.dir.file("load.ndjson")
        let rows = (0..<3).map { #"["n\#($0)",\#($0)]"# }.joined(separator: ",")
        let lines = [
            CLIStore.request(1, "store/batchInsert", #"{"entity":"Contact","keys":["name","age"],"rows":[\#(rows)]}"#),
            CLIStore.request(2, "context/count", #"{"context":"main","request":{"entity":"Contact"}}"#),
        ]
        try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let plain = try FetchdProcess.run(["exec", file, "--store", store.path], input: "")
        let store2 = try CLIStore()
        let shown = try FetchdProcess.run(["exec", file, "--store", store2.path, "--progress"], input: "")
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.output == plain.output)
        #expect(!shown.output.contains("$/progress"))
        let bar = shown.stderr.split(separator: "\n").map(String.init)
        #expect(bar.allSatisfy { $0.hasPrefix("fetchd exec: [") }, "\(shown.stderr)")
        #expect(bar.contains { $0.hasSuffix("| store/batchInsert: checking 3 rows") }, "\(shown.stderr)")
        #expect(bar.last?.hasPrefix("fetchd exec: [####################] 100% of ") == true, "\(shown.stderr)")
        #expect(bar.last?.hasSuffix(", 2 messages") == true, "\(shown.stderr)")
    }
}
