import Testing
import JSON
import JSONRPC
import Model
import Server

/// A typed request as other method areas declare theirs.
struct Rename: RPCMethod {
    static let name = "test/rename"
    var id: String
    var to: String
    var force: Bool
    var limit: Int?
    var keys: [String]?
    var window: Window?

    struct Window: ParamDecodable {
        var offset: Int
        var limit: Int?
        init(from params: ParamReader) throws {
            offset = try params.int("offset")
            limit = try params.optionalInt("limit")
            if let limit, limit < 0 { throw params.mismatch("limit", "non-negative integer", got: "\(limit)") }
        }
    }

    init(params: ParamReader) throws {
        id = try params.string("id")
        to = try params.string("to")
        force = try params.optionalBool("force") ?? false
        limit = try params.optionalInt("limit")
        keys = try params.optionalStringArray("keys")
        window = try params.optionalDecode("window")
    }
}

struct Boom: Error {}

@Suite struct MethodRegistryTests {
    func server() -> Server {
        let server = Server()
        server.methods.register(Rename.self) { request in
            ["id": .string(request.id), "to": .string(request.to), "force": .bool(request.force),
             "limit": request.limit.map { .integer(Int64($0)) } ?? .null,
             "keys": request.keys.map { .array($0.map(JSON.string)) } ?? .null,
             "offset": request.window.map { .integer(Int64($0.offset)) } ?? .null] as JSON
        }
        server.methods.register("test/engineError") { params -> EmptyResult in
            throw EngineError(.unknownContext, "no context named \(try params.string("context"))",
                              [("context", .string(try params.string("context")))])
        }
        server.methods.register("test/unexpected") { _ -> EmptyResult in throw Boom() }
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
        let r = call(server(), "test/rename", ["id": "Contact/1", "to": "x", "limit": 2.0, "keys": ["a"],
                                               "window": ["offset": 3], "extra": true])
        #expect(try r.get() == ["id": "Contact/1", "to": "x", "force": false, "limit": 2, "keys": ["a"], "offset": 3])
    }

    @Test func nullOptionalsAreAbsent() throws {
        let r = call(server(), "test/rename", ["id": "a", "to": "b", "force": nil, "limit": nil, "window": nil])
        #expect(try r.get()["limit"] == .null)
    }

    @Test func missingAndMistypedParamsBecomeInvalidParams() {
        let s = server()
        #expect(invalidParams(call(s, "test/rename", ["to": "x"]))
            == ["kind": "invalidParams", "param": "id", "expected": "string", "got": "missing"])
        #expect(invalidParams(call(s, "test/rename", ["id": nil, "to": "x"]))
            == ["kind": "invalidParams", "param": "id", "expected": "string", "got": "null"])
        #expect(invalidParams(call(s, "test/rename", ["id": 3, "to": "x"]))
            == ["kind": "invalidParams", "param": "id", "expected": "string", "got": "integer"])
        #expect(invalidParams(call(s, "test/rename", ["id": "a", "to": "x", "limit": 1.5]))
            == ["kind": "invalidParams", "param": "limit", "expected": "integer", "got": "number"])
        #expect(invalidParams(call(s, "test/rename", ["id": "a", "to": "x", "keys": ["a", 2]]))
            == ["kind": "invalidParams", "param": "keys[1]", "expected": "string", "got": "integer"])
        #expect(invalidParams(call(s, "test/rename", ["id": "a", "to": "x", "window": ["limit": 1]]))
            == ["kind": "invalidParams", "param": "window.offset", "expected": "integer", "got": "missing"])
        #expect(invalidParams(call(s, "test/rename", ["id": "a", "to": "x", "window": ["offset": 0, "limit": -1]]))
            == ["kind": "invalidParams", "param": "window.limit", "expected": "non-negative integer", "got": "-1"])
        #expect(invalidParams(call(s, "test/rename", ["id": "a", "to": "x", "window": []]))
            == ["kind": "invalidParams", "param": "window", "expected": "object", "got": "array"])
    }

    @Test func engineErrorsGoThroughTheTable() {
        let r = call(server(), "test/engineError", ["context": "nope"])
        #expect(r == .failure(RPCError(code: -32023, message: "no context named nope",
                                       data: ["kind": "unknownContext", "context": "nope"])))
    }

    @Test func unexpectedErrorsAreInternalWithoutDetails() {
        guard case .failure(let e) = call(server(), "test/unexpected", [:]) else { Issue.record("succeeded"); return }
        #expect(e.code == -32603)
        #expect(e.data == ["kind": "internal", "reason": "test/unexpected failed unexpectedly"])
    }

    @Test func inProcessCallsUseTheSameTable() {
        let s = server()
        #expect(s.call("test/rename", ["id": "a", "to": "b"]).map { $0["to"] } == .success("b"))
        #expect(s.call("store/none", nil) == .failure(.methodNotFound("store/none")))
    }
}
