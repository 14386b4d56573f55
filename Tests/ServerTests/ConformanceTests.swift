import JSON
import JSONRPC
import Server
import Testing

/// One exchange over raw bytes: the message bodies sent, and the messages expected back in
/// order (inside `error` objects only the members given are compared).
struct Exchange: Sendable, CustomTestStringConvertible {
    var name: String
    var send: [String]
    var expect: [String]
    var testDescription: String { name }

    init(_ name: String, _ send: [String], _ expect: [String]) {
        self.name = name
        self.send = send
        self.expect = expect
    }
}

/// JSON-RPC 2.0 conformance: the numbered cases of protocol.md §13 (C, P and B; test names start
/// with the case ID) and the specification's own example exchanges (subtract/sum/update/...
/// renamed to fetchd methods), run in both framings.
enum ConformanceTable {
    static func E(_ code: Int, _ id: String = "null", kind: String? = nil) -> String {
        let data = kind.map { #","data":{"kind":"\#($0)"}"# } ?? ""
        return #"{"jsonrpc":"2.0","error":{"code":\#(code)\#(data)},"id":\#(id)}"#
    }
    static func R(_ result: String, _ id: String) -> String { #"{"jsonrpc":"2.0","result":\#(result),"id":\#(id)}"# }
    static func echo(_ value: String, id: String? = nil) -> String {
        #"{"jsonrpc":"2.0","method":"server/echo","params":{"value":\#(value)}"# + (id.map { #","id":\#($0)"# } ?? "")
            + "}"
    }
    static func ping(id: String? = nil) -> String {
        #"{"jsonrpc":"2.0","method":"server/ping""# + (id.map { #","id":\#($0)"# } ?? "") + "}"
    }

    static let ids: [Exchange] = [
        Exchange("C1 number id echoed", [ping(id: "1")], [R("{}", "1")]),
        Exchange(
            "C2 string ids echoed", [ping(id: #""abc""#), ping(id: #""""#), ping(id: #""1""#), ping(id: #""ü😀""#)],
            [R("{}", #""abc""#), R("{}", #""""#), R("{}", #""1""#), R("{}", #""ü😀""#)]),
        Exchange("C3 negative and zero ids", [ping(id: "-15"), ping(id: "0")], [R("{}", "-15"), R("{}", "0")]),
        Exchange("C4 fractional id echoed", [ping(id: "1.5")], [R("{}", "1.5")]),
        Exchange("C5 null id is a request", [ping(id: "null")], [R("{}", "null")]),
        Exchange(
            "C6 ids of other types", [ping(id: "true"), ping(id: "{}"), ping(id: "[]")],
            [E(-32600), E(-32600), E(-32600)]),
        Exchange("C7 id beyond int64", [ping(id: "9223372036854775808")], [E(-32700, kind: "parseError")]),
        Exchange(
            "int64 extremes as ids", [ping(id: "9223372036854775807"), ping(id: "-9223372036854775808")],
            [R("{}", "9223372036854775807"), R("{}", "-9223372036854775808")]),
    ]

    static let requests: [Exchange] = [
        Exchange("C8 notification of a known method", [ping()], []),
        Exchange("C9 notification of an unknown method", [#"{"jsonrpc":"2.0","method":"no/such"}"#], []),
        Exchange(
            "C10 notification with invalid params", [#"{"jsonrpc":"2.0","method":"server/echo","params":{}}"#], []),
        Exchange(
            "C11 unknown method", [#"{"jsonrpc":"2.0","method":"no/such","id":4}"#],
            [E(-32601, "4", kind: "methodNotFound")]),
        Exchange(
            "C12 rpc. methods other than rpc.discover", [#"{"jsonrpc":"2.0","method":"rpc.other","id":4}"#],
            [E(-32601, "4")]),
        Exchange("C13 method not a string", [#"{"jsonrpc":"2.0","method":1,"params":"bar"}"#], [E(-32600)]),
        Exchange("C14 no method", [#"{"jsonrpc":"2.0","id":1}"#, #"{"id":1}"#], [E(-32600, "1"), E(-32600, "1")]),
        Exchange(
            "C15 jsonrpc version",
            [
                #"{"method":"server/ping","id":1}"#, #"{"jsonrpc":"2.1","method":"server/ping","id":2}"#,
                #"{"jsonrpc":"1.0","method":"server/ping","id":3}"#, #"{"jsonrpc":2.0,"method":"server/ping","id":4}"#,
                #"{"jsonrpc":null,"method":"server/ping","id":5}"#,
            ],
            [E(-32600, "1"), E(-32600, "2"), E(-32600, "3"), E(-32600, "4"), E(-32600, "5")]),
        Exchange(
            "C16 params neither object nor array",
            [
                #"{"jsonrpc":"2.0","method":"server/ping","params":"bar","id":1}"#,
                #"{"jsonrpc":"2.0","method":"server/ping","params":42,"id":2}"#,
            ],
            [E(-32600, "1"), E(-32600, "2")]),
        Exchange(
            "C17 params null is absent",
            [#"{"jsonrpc":"2.0","method":"server/ping","params":null,"id":1}"#], [R("{}", "1")]),
        Exchange(
            "C18 by-position params to a by-name method",
            [#"{"jsonrpc":"2.0","method":"server/echo","params":[42],"id":1}"#],
            [
                #"{"jsonrpc":"2.0","error":{"code":-32602,"data":{"kind":"invalidParams","param":"params","expected":"object (parameters by name)","got":"array"}},"id":1}"#
            ]),
        Exchange(
            "C18 empty by-position params mean none",
            [#"{"jsonrpc":"2.0","method":"server/ping","params":[],"id":1}"#], [R("{}", "1")]),
        Exchange(
            "C19 missing parameter",
            [#"{"jsonrpc":"2.0","method":"server/echo","params":{},"id":1}"#],
            [
                #"{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params","data":{"kind":"invalidParams","param":"value","expected":"a value","got":"missing"}},"id":1}"#
            ]),
        Exchange(
            "C19 mistyped and nested parameters",
            [
                #"{"jsonrpc":"2.0","method":"initialize","params":{"clientInfo":"me"},"id":1}"#,
                #"{"jsonrpc":"2.0","method":"initialize","params":{"clientInfo":{"name":7}},"id":2}"#,
            ],
            [
                #"{"jsonrpc":"2.0","error":{"code":-32602,"data":{"kind":"invalidParams","param":"clientInfo","expected":"object","got":"string"}},"id":1}"#,
                #"{"jsonrpc":"2.0","error":{"code":-32602,"data":{"kind":"invalidParams","param":"clientInfo.name","expected":"string","got":"integer"}},"id":2}"#,
            ]),
        Exchange(
            "C22 unknown members ignored",
            [#"{"jsonrpc":"2.0","method":"server/ping","id":1,"foo":1}"#], [R("{}", "1")]),
        Exchange(
            "C23 member names are case-sensitive",
            [#"{"jsonrpc":"2.0","Method":"server/ping","id":1}"#], [E(-32600, "1")]),
        Exchange(
            "C24 responses from the client are dropped",
            [
                #"{"jsonrpc":"2.0","result":1,"id":"s-1"}"#,
                #"{"jsonrpc":"2.0","error":{"code":1,"message":"x"},"id":2}"#,
            ], []),
    ]

    static let parsing: [Exchange] = [
        Exchange(
            "P1 invalid JSON", [#"{"jsonrpc":"2.0","method":"foobar, "params": "bar", "baz]"#],
            [E(-32700, kind: "parseError")]),
        Exchange(
            "P3 JSON that is not a request", ["42", #""x""#, "null", "true"],
            [E(-32600), E(-32600), E(-32600), E(-32600)]),
        Exchange("P4 trailing garbage", [ping(id: "1") + " x"], [E(-32700)]),
        Exchange(
            "P5 not JSON", [#"{"a":"\ud800"}"#, "{'a':1}", "[1,]", "NaN", "\u{FEFF}{}", "garbage"],
            [E(-32700), E(-32700), E(-32700), E(-32700), E(-32700), E(-32700)]),
        Exchange(
            "P6 nesting deeper than 2048", [String(repeating: "[", count: 200_000)], [E(-32700, kind: "parseError")]),
        Exchange("P7 duplicate keys keep the last", [ping(id: "1").dropLast() + #","id":2}"#], [R("{}", "2")]),
        Exchange(
            "P8 NUL and any Unicode in strings", [echo(#""a\u0000b é 😀 \ud83d\ude00 \/""#, id: "1")],
            [R(#""a\u0000b é 😀 😀 /""#, "1")]),
        Exchange(
            "numbers round-trip exactly", [echo("[0.1,1e300,-0.0,9007199254740993,1.0]", id: "1")],
            [R("[0.1,1e+300,-0.0,9007199254740993,1.0]", "1")]),
        Exchange(
            "integer beyond int64 in params", [echo("18446744073709551616", id: "1")], [E(-32700, kind: "parseError")]),
    ]

    static let batches: [Exchange] = [
        Exchange("B1 empty batch is one error object", ["[]"], [E(-32600)]),
        Exchange("B2 batch of one invalid element", ["[1]"], ["[" + E(-32600) + "]"]),
        Exchange(
            "B3 three invalid elements", ["[1,2,3]"],
            ["[" + [E(-32600), E(-32600), E(-32600)].joined(separator: ",") + "]"]),
        Exchange("B4 only notifications: no bytes at all", ["[" + ping() + "," + echo("1") + "]"], []),
        Exchange(
            "B6 broken batch JSON",
            [
                #"[{"jsonrpc":"2.0","method":"server/echo","params":{"value":1},"id":"1"},{"jsonrpc":"2.0","method""#
                    + "]"
            ],
            [E(-32700)]),
        Exchange(
            "B7 notifications plus one invalid element", ["[" + ping() + ",{\"foo\":\"boo\"}]"], ["[" + E(-32600) + "]"]
        ),
        Exchange("B8 nested batch", ["[[" + ping(id: "1") + "]]"], ["[" + E(-32600) + "]"]),
        Exchange(
            "B9 duplicate ids are each answered", ["[" + ping(id: "1") + "," + ping(id: "1") + "]"],
            ["[" + R("{}", "1") + "," + R("{}", "1") + "]"]),
        Exchange(
            "batch answers keep the batch's order",
            ["[" + echo("1", id: "3") + "," + echo("2", id: "1") + "," + echo("3", id: "2") + "]"],
            ["[" + R("1", "3") + "," + R("2", "1") + "," + R("3", "2") + "]"]),
    ]

    /// The specification's examples, with fetchd's methods in place of subtract/sum/update/...
    static let specification: [Exchange] = [
        Exchange(
            "spec: request and response", [echo("19", id: "1"), echo("-19", id: "2")], [R("19", "1"), R("-19", "2")]),
        Exchange(
            "spec: notifications",
            [
                #"{"jsonrpc":"2.0","method":"server/echo","params":{"value":[1,2,3,4,5]}}"#,
                #"{"jsonrpc":"2.0","method":"foobar"}"#,
            ], []),
        Exchange(
            "spec: non-existent method", [#"{"jsonrpc":"2.0","method":"foobar","id":"1"}"#],
            [#"{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":"1"}"#]),
        Exchange(
            "spec: invalid JSON", [#"{"jsonrpc":"2.0","method":"foobar, "params": "bar", "baz]"#],
            [#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}"#]),
        Exchange(
            "spec: invalid Request object", [#"{"jsonrpc":"2.0","method":1,"params":"bar"}"#],
            [#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null}"#]),
        Exchange(
            "spec: batch with invalid JSON",
            [
                #"[{"jsonrpc":"2.0","method":"server/echo","params":{"value":7},"id":"1"},{"jsonrpc":"2.0","method""#
                    + "]"
            ],
            [E(-32700)]),
        Exchange("spec: empty array", ["[]"], [E(-32600)]),
        Exchange("spec: invalid batch of one", ["[1]"], ["[" + E(-32600) + "]"]),
        Exchange(
            "spec: invalid batch", ["[1,2,3]"], ["[" + [E(-32600), E(-32600), E(-32600)].joined(separator: ",") + "]"]),
        Exchange(
            "spec: mixed batch",
            [
                "["
                    + [
                        echo("7", id: #""1""#), echo("[7]"), echo("19", id: #""2""#), #"{"foo":"boo"}"#,
                        #"{"jsonrpc":"2.0","method":"foo.get","params":{"name":"myself"},"id":"5"}"#,
                        ping(id: #""9""#),
                    ].joined(separator: ",") + "]"
            ],
            [
                "["
                    + [R("7", #""1""#), R("19", #""2""#), E(-32600), E(-32601, #""5""#), R("{}", #""9""#)].joined(
                        separator: ",") + "]"
            ]),
        Exchange("spec: all-notification batch", ["[" + echo("[1,2,4]") + "," + echo("[7]") + "]"], []),
    ]

    static let lifecycle: [Exchange] = [
        Exchange(
            "initialize answers serverInfo, protocolVersion and capabilities",
            [
                #"{"jsonrpc":"2.0","method":"initialize","params":{"processId":null,"clientInfo":{"name":"t"},"capabilities":{}},"id":1}"#
            ],
            [
                R(
                    #"{"serverInfo":{"name":"fetchd","version":"\#(FetchdVersion.current)"},"protocolVersion":1,"capabilities":{"batch":true}}"#,
                    "1")
            ]),
        Exchange(
            "initialize must be first",
            [ping(id: "1"), #"{"jsonrpc":"2.0","method":"initialize","id":2}"#],
            [R("{}", "1"), E(-32600, "2", kind: "initializeNotFirst")]),
        Exchange(
            "initialize only once",
            [#"{"jsonrpc":"2.0","method":"initialize","id":1}"#, #"{"jsonrpc":"2.0","method":"initialize","id":2}"#],
            [
                R(
                    #"{"serverInfo":{"name":"fetchd","version":"\#(FetchdVersion.current)"},"protocolVersion":1,"capabilities":{"batch":true}}"#,
                    "1"),
                E(-32600, "2", kind: "alreadyInitialized"),
            ]),
        Exchange(
            "shutdown, then only exit",
            [
                #"{"jsonrpc":"2.0","method":"shutdown","id":1}"#, ping(id: "2"), ping(),
                #"{"jsonrpc":"2.0","method":"exit"}"#, ping(id: "3"),
            ],
            [R("null", "1"), E(-32600, "2", kind: "shutdownRequested")]),
    ]

    static let all = ids + requests + parsing + batches + specification + lifecycle
}

@Suite struct ConformanceTests {
    @Test(arguments: ConformanceTable.all, [Framing.ndjson, Framing.lsp])
    func exchange(_ exchange: Exchange, _ framing: Framing) throws {
        let harness = Harness(framing)
        let got = harness.send(exchange.send)
        got.forEach(checkInvariants)
        let expected = try exchange.expect.map { try JSON.parse($0) }
        #expect(got.count == expected.count, "\(got)")
        for (e, g) in zip(expected, got) {
            #expect(matches(e, g), "expected \(e)\n     got \(g)")
        }
    }

    @Test(arguments: ConformanceTable.all, [Framing.ndjson, Framing.lsp])
    func sameBytesOneByteAtATime(_ exchange: Exchange, _ framing: Framing) {
        // Splitting the input anywhere changes nothing: same input bytes, same output bytes.
        let whole = Harness(framing)
        whole.send(exchange.send)
        let split = Harness(framing)
        for byte in split.frame(exchange.send) where split.output.count < 1 << 20 { split.send(raw: [byte]) }
        #expect(split.output == whole.output)
    }
}
