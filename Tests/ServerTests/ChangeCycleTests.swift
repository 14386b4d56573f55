import JSON
import JSONRPC
import Server
import Testing

/// A test notification's params: any JSON.
struct AnyPayload: NotificationPayload {
    static let params: [ParamSpec] = []
    let json: JSON
}

struct TouchParams: PlainParams {
    static let name = Param<String>.required("name", .string)
    static let params = ParamSpec.list(name)
    let name: String
    init(params p: ParamReader) throws { name = try p[Self.name] }
}

enum TouchDeclarations {
    static let touch = MethodDeclaration<TouchParams, EmptyResult>(
        "test/touch", "Marks a name dirty.", errors: [.invalidParams])
    static let touched = ServerNotification<AnyPayload>("test/touched", "A name was touched.")
    static let cycle = ServerNotification<AnyPayload>("test/cycle", "The names touched in a cycle.")
}

/// The end of a cycle, as observers see it: one per top-level message, notifications before responses.
@Suite struct ChangeCycleTests {
    final class Counter: ServerObserver {
        var cycles = 0
        var dirty: [String] = []
        func serverWillEndCycle(_ server: Server) {
            cycles += 1
            defer { dirty.removeAll() }
            if !dirty.isEmpty { server.send(TouchDeclarations.cycle, AnyPayload(json: .array(dirty.map(JSON.string)))) }
        }
    }

    func server() -> (Server, Counter) {
        let server = Server()
        let counter = Counter()
        server.methods.add([
            TouchDeclarations.touch.handle { [unowned server] p in
                counter.dirty.append(p.name)
                server.send(TouchDeclarations.touched, AnyPayload(json: ["name": .string(p.name)]))
                return EmptyResult()
            }
        ])
        server.addObserver(counter)
        return (server, counter)
    }

    func touch(_ name: String, id: Int? = nil) -> String {
        #"{"jsonrpc":"2.0","method":"test/touch","params":{"name":"\#(name)"}"# + (id.map { #","id":\#($0)"# } ?? "")
            + "}"
    }

    @Test(arguments: [Framing.ndjson, .lsp])
    func notificationsPrecedeTheResponse(_ framing: Framing) {
        let (server, counter) = server()
        let out = Harness(framing, server: server).send([touch("a", id: 1)])
        #expect(
            out.map(\.serializedString) == [
                #"{"jsonrpc":"2.0","method":"test/touched","params":{"name":"a"}}"#,
                #"{"jsonrpc":"2.0","method":"test/cycle","params":["a"]}"#,
                #"{"jsonrpc":"2.0","result":{},"id":1}"#,
            ])
        #expect(counter.cycles == 1)
    }

    @Test func aBatchIsOneCycle() {
        let (server, counter) = server()
        let out = Harness(.ndjson, server: server).send([
            "[" + touch("a", id: 1) + "," + touch("b") + "," + touch("c", id: 2) + "]"
        ])
        #expect(
            out.map(\.serializedString) == [
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
