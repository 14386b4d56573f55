import Testing
import JSON
import JSONRPC
import Server

/// The end-of-cycle hook: one cycle per top-level message, its notifications before responses.
@Suite struct ChangeCycleTests {
    final class Counter { var cycles = 0; var dirty: [String] = [] }

    func server() -> (Server, Counter) {
        let server = Server()
        let counter = Counter()
        server.methods.register("test/touch") { [unowned server] params -> EmptyResult in
            let name = try params.string("name")
            counter.dirty.append(name)
            server.notify("test/touched", ["name": .string(name)])
            return EmptyResult()
        }
        server.onEndOfCycle {
            counter.cycles += 1
            defer { counter.dirty.removeAll() }
            return counter.dirty.isEmpty ? [] : [OutgoingNotification(method: "test/cycle", params: .array(counter.dirty.map(JSON.string)))]
        }
        return (server, counter)
    }

    func touch(_ name: String, id: Int? = nil) -> String {
        #"{"jsonrpc":"2.0","method":"test/touch","params":{"name":"\#(name)"}"# + (id.map { #","id":\#($0)"# } ?? "") + "}"
    }

    @Test(arguments: [Framing.ndjson, .lsp])
    func notificationsPrecedeTheResponse(_ framing: Framing) {
        let (server, counter) = server()
        let out = Harness(framing, server: server).send([touch("a", id: 1)])
        #expect(out.map(\.serializedString) == [
            #"{"jsonrpc":"2.0","method":"test/touched","params":{"name":"a"}}"#,
            #"{"jsonrpc":"2.0","method":"test/cycle","params":["a"]}"#,
            #"{"jsonrpc":"2.0","result":{},"id":1}"#,
        ])
        #expect(counter.cycles == 1)
    }

    @Test func aBatchIsOneCycle() {
        let (server, counter) = server()
        let out = Harness(.ndjson, server: server).send(["[" + touch("a", id: 1) + "," + touch("b") + "," + touch("c", id: 2) + "]"])
        #expect(out.map(\.serializedString) == [
            #"{"jsonrpc":"2.0","method":"test/touched","params":{"name":"a"}}"#,
            #"{"jsonrpc":"2.0","method":"test/touched","params":{"name":"b"}}"#,
            #"{"jsonrpc":"2.0","method":"test/touched","params":{"name":"c"}}"#,
            #"{"jsonrpc":"2.0","method":"test/cycle","params":["a","b","c"]}"#,
            #"[{"jsonrpc":"2.0","result":{},"id":1},{"jsonrpc":"2.0","result":{},"id":2}]"#,
        ])
        #expect(counter.cycles == 1)
    }

    @Test func aNotificationClosesItsOwnCycleToo() {
        let (server, counter) = server()
        let out = Harness(.ndjson, server: server).send([touch("n")])
        #expect(out.count == 2)
        #expect(out.last?["method"] == "test/cycle")
        #expect(counter.cycles == 1)
    }

    @Test func inputThatDispatchesNothingRunsNoCycle() {
        let (server, counter) = server()
        Harness(.ndjson, server: server).send(["{bad", "[]", "[1]", "42"])
        #expect(counter.cycles == 0)
    }
}
