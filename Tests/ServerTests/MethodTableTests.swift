import JSON
import JSONRPC
import Model
import Server
import Testing

/// A typed request as the method namespaces declare theirs.
struct Rename: PlainParams {
    static let id = Param<String>.required("id", .string)
    static let to = Param<String>.required("to", .string)
    static let force = Param<Bool?>.optional("force", .boolean)
    static let limit = Param<Int?>.optional("limit", .integer)
    static let keys = Param<[String]?>.optional("keys", .array(.string))
    static let window = Param<Window?>.optional("window", .object(members: [Window.offset, Window.limit]))
    static let params = ParamSpec.list(id, to, force, limit, keys, window)
    var id: String
    var to: String
    var force: Bool
    var limit: Int?
    var keys: [String]?
    var window: Window?

    struct Window: ParamDecodable {
        static let offset = Param<Int>.required("offset", .integer)
        static let limit = Param<Int?>.optional("limit", Schema.integer.minimum(0))
        var offset: Int
        var limit: Int?
        init(from params: ParamReader) throws {
            offset = try params[Self.offset]
            limit = try params[Self.limit]
        }
    }

    init(params p: ParamReader) throws {
        id = try p[Self.id]
        to = try p[Self.to]
        force = try p[Self.force] ?? false
        limit = try p[Self.limit]
        keys = try p[Self.keys]
        window = try p[Self.window]
    }
}

struct ContextName: PlainParams {
    static let context = Param<String>.required("context", .string)
    static let params = ParamSpec.list(context)
    let context: String
    init(params p: ParamReader) throws { context = try p[Self.context] }
}

/// Any JSON, for test results.
struct AnyResult: RPCResult {
    static let resultName = "value"
    static let schema = Schema.any
    let json: JSON
}

struct Boom: Error {}

enum TestDeclarations {
    static let rename = MethodDeclaration<Rename, AnyResult>("test/rename", "Renames.", errors: [.invalidParams])
    static let engineError = MethodDeclaration<ContextName, EmptyResult>(
        "test/engineError", "Fails.", errors: [.invalidParams, .engine(.unknownContext)])
    static let unexpected = MethodDeclaration<NoParams, EmptyResult>("test/unexpected", "Fails badly.", errors: [])
}

@Suite struct MethodTableTests {
    func server() -> Server {
        let server = Server()
        server.methods.add([
            TestDeclarations.rename.handle { request in
                let limit: JSON = request.limit.map { .integer(Int64($0)) } ?? .null
                let keys: JSON = request.keys.map { .array($0.map(JSON.string)) } ?? .null
                let offset: JSON = request.window.map { .integer(Int64($0.offset)) } ?? .null
                return AnyResult(json: [
                    "id": .string(request.id), "to": .string(request.to), "force": .bool(request.force),
                    "limit": limit, "keys": keys, "offset": offset,
                ])
            },
            TestDeclarations.engineError.handle { p -> EmptyResult in
                throw EngineError(.unknownContext, "no context named \(p.context)", [("context", .string(p.context))])
            },
            TestDeclarations.unexpected.handle { _ -> EmptyResult in throw Boom() },
        ])
        return server
    }

    func call(_ server: Server, _ method: String, _ params: JSON) -> Result<JSON, RPCError> {
        server.handle(Request(method: method, params: .byName(params.objectValue ?? [:]), id: .integer(1)))
    }

    func invalidParams(_ r: Result<JSON, RPCError>) -> JSON? {
        guard case .failure(let e) = r, e.code == -32602 else { return nil }
        return e.data
    }

    @Test func decodesATypedRequest() throws {
        let r = call(
            server(), "test/rename",
            [
                "id": "Contact/1", "to": "x", "limit": 2.0, "keys": ["a"],
                "window": ["offset": 3], "extra": true,
            ])
        #expect(try r.get() == ["id": "Contact/1", "to": "x", "force": false, "limit": 2, "keys": ["a"], "offset": 3])
    }

    @Test func nullOptionalsAreAbsent() throws {
        let r = call(server(), "test/rename", ["id": "a", "to": "b", "force": nil, "limit": nil, "window": nil])
        #expect(try r.get()["limit"] == .null)
    }

    @Test func missingAndMistypedParamsBecomeInvalidParams() {
        let s = server()
        #expect(
            invalidParams(call(s, "test/rename", ["to": "x"]))
                == ["kind": "invalidParams", "param": "id", "expected": "string", "got": "missing"])
        #expect(
            invalidParams(call(s, "test/rename", ["id": nil, "to": "x"]))
                == ["kind": "invalidParams", "param": "id", "expected": "string", "got": "null"])
        #expect(
            invalidParams(call(s, "test/rename", ["id": 3, "to": "x"]))
                == ["kind": "invalidParams", "param": "id", "expected": "string", "got": "integer"])
        #expect(
            invalidParams(call(s, "test/rename", ["id": "a", "to": "x", "limit": 1.5]))
                == ["kind": "invalidParams", "param": "limit", "expected": "integer", "got": "number"])
        #expect(
            invalidParams(call(s, "test/rename", ["id": "a", "to": "x", "keys": ["a", 2]]))
                == ["kind": "invalidParams", "param": "keys[1]", "expected": "string", "got": "integer"])
        #expect(
            invalidParams(call(s, "test/rename", ["id": "a", "to": "x", "window": ["limit": 1]]))
                == ["kind": "invalidParams", "param": "window.offset", "expected": "integer", "got": "missing"])
        #expect(
            invalidParams(call(s, "test/rename", ["id": "a", "to": "x", "window": ["offset": 0, "limit": -1]]))
                == ["kind": "invalidParams", "param": "window.limit", "expected": "a count >= 0", "got": "-1"])
        #expect(
            invalidParams(call(s, "test/rename", ["id": "a", "to": "x", "window": []]))
                == ["kind": "invalidParams", "param": "window", "expected": "object", "got": "array"])
    }

    @Test func engineErrorsGoThroughTheTable() {
        let r = call(server(), "test/engineError", ["context": "nope"])
        #expect(
            r
                == .failure(
                    RPCError(
                        code: -32023, message: "no context named nope",
                        data: ["kind": "unknownContext", "context": "nope"])))
    }

    @Test func unexpectedErrorsAreInternalWithoutDetails() {
        guard case .failure(let e) = call(server(), "test/unexpected", [:]) else {
            Issue.record("succeeded")
            return
        }
        #expect(e.code == -32603)
        #expect(e.data == ["kind": "internal", "reason": "test/unexpected failed unexpectedly"])
    }

    @Test func addedMethodsAreDescribedInDeclarationOrder() {
        let names = server().methods.descriptions.map(\.name)
        #expect(Array(names.suffix(3)) == ["test/rename", "test/engineError", "test/unexpected"])
        let document = server().openRPCDocument
        let rename = document["methods"]?.arrayValue?.first { $0["name"] == "test/rename" }
        #expect(rename?["params"]?.arrayValue?.map { $0["name"] } == ["id", "to", "force", "limit", "keys", "window"])
        #expect(rename?["errors"] == [["code": -32602, "message": "invalidParams"]])
    }

    @Test func inProcessCallsUseTheSameTable() {
        let s = server()
        #expect(s.call("test/rename", ["id": "a", "to": "b"]).map { $0["to"] } == .success("b"))
        #expect(s.call("store/none", nil) == .failure(.methodNotFound("store/none")))
    }
}
