import Foundation
import JSON
import Testing

/// `fetchd describe` prints exactly the checked-in clients/openrpc.json, and the binary's
/// `rpc.discover` answers the same document.
@Suite struct DescribeTests {
    static let checkedIn = #filePath.components(separatedBy: "/Tests/")[0] + "/clients/openrpc.json"

    @Test func describePrintsTheCheckedInDocument() throws {
        let fetchd = try FetchdProcess(["describe"])
        fetchd.closeInput()
        let (output, stderr, status) = fetchd.finish()
        #expect(status == 0, "\(stderr)")
        let file = try String(contentsOfFile: Self.checkedIn, encoding: .utf8)
        #expect(
            output == file, "clients/openrpc.json is stale: run .build/debug/fetchd describe > clients/openrpc.json")
    }

    @Test func rpcDiscoverOverThePipesIsTheSameDocument() throws {
        let fetchd = try FetchdProcess()
        fetchd.write(#"{"jsonrpc":"2.0","method":"rpc.discover","id":1}"# + "\n")
        fetchd.closeInput()
        let (output, stderr, status) = fetchd.finish()
        #expect(status == 0, "\(stderr)")
        let answer = try JSON.parse(Array(output.utf8))
        let file = try JSON.parse(Array(try String(contentsOfFile: Self.checkedIn, encoding: .utf8).utf8))
        #expect(answer["result"] == file)
    }
}
