import JSON
import JSONRPC
import Server
import Testing

/// The params a declaration lists for the document and the decoder it dispatches through
/// cannot drift: for every method, a value built from the schema decodes; leaving out a
/// required param, or giving a param (or a member of an object param) a value of a type its
/// schema refuses, is the -32602 naming it. Samples name what a fresh fixture holds (entity,
/// key, context and controller `x`, object `x/1`), so each check reaches every param.
@Suite struct DeclarationSchemaTests {
    static let callable = Server().methods.descriptions.filter { $0.direction != .serverToClient }

    /// A server with entity `x` (key `x`), context `x` holding object `x/1`, controller `x`.
    func fixture() -> Server {
        let s = Server()
        let model: JSON = ["entities": [["name": "x", "attributes": ["x": ["type": "string", "optional": true]]]]]
        for (method, params) in [
            ("store/open", ["model": model]), ("context/create", ["name": "x"]),
            ("context/insert", ["context": "x", "entity": "x", "values": [:]]),
            ("controller/create", ["context": "x", "name": "x", "request": ["entity": "x"]]),
        ] as [(String, JSON)] {
            if case .failure(let e) = s.call(method, params) { Issue.record("fixture \(method): \(e)") }
        }
        s.endOfCycle()
        return s
    }

    func call(_ d: MethodDescription, _ params: JSONObject) -> Result<JSON, RPCError> {
        // Client notifications are dispatched as notifications (as requests they do not exist).
        let id: RequestID? = d.direction == .clientToServer ? nil : .integer(1)
        return fixture().handle(Request(method: d.name, params: .byName(params), id: id))
    }

    /// Every param, with a value from its schema (`store/open` stays in memory: no file is
    /// made and no server is contacted, so its PostgreSQL `url` and `schema` are left out).
    func sample(_ d: MethodDescription) -> JSONObject {
        JSONObject(
            d.params.filter { d.name != "store/open" || ($0.name != "url" && $0.name != "schema") }.map {
                ($0.name, $0.name == "path" ? ":memory:" : SchemaChecking.sample($0.schema.json))
            })
    }

    /// The param a -32602 names, or nil for any other outcome. (`store/open`'s model is read by
    /// the model decoder, whose `invalidModel` names the path inside the model.)
    func namedParam(_ r: Result<JSON, RPCError>) -> String? {
        guard case .failure(let e) = r else { return nil }
        if e.code == -32602, e.data?["kind"] == "invalidParams" { return e.data?["param"]?.stringValue }
        if e.data?["kind"] == "invalidModel" { return "model" }
        return nil
    }

    @Test(arguments: callable.map(\.name))
    func aSampleFromTheSchemaDecodes(_ name: String) {
        let d = Self.callable.first { $0.name == name }!
        let outcome = call(d, sample(d))
        if case .failure(let e) = outcome {
            #expect(e.code != -32602 || e.data?["kind"] != "invalidParams", "\(name) refused \(sample(d)): \(e)")
        }
    }

    @Test(arguments: callable.map(\.name))
    func eachRequiredParamLeftOutIsNamed(_ name: String) {
        let d = Self.callable.first { $0.name == name }!
        for p in d.params where p.required {
            var params = sample(d)
            params[p.name] = nil
            let r = call(d, params)
            #expect(namedParam(r) == p.name, "\(name) without \(p.name): \(r)")
            if p.name != "model", case .failure(let e) = r { #expect(e.data?["got"] == "missing") }
        }
    }

    @Test(arguments: callable.map(\.name))
    func eachParamOfAWrongTypeIsNamed(_ name: String) {
        let d = Self.callable.first { $0.name == name }!
        for p in d.params {
            guard let wrong = SchemaChecking.mistyped(p.schema.json) else { continue }
            var params = sample(d)
            params[p.name] = wrong
            #expect(namedParam(call(d, params)) == p.name, "\(name) with \(p.name): \(wrong)")
        }
    }

    /// One level into object params (FetchRequest, notify, clientInfo): required members,
    /// members of a wrong type, and members a closed object does not list.
    @Test(arguments: callable.map(\.name))
    func membersOfObjectParamsAreChecked(_ name: String) {
        let d = Self.callable.first { $0.name == name }!
        for p in d.params where p.name != "model" {
            let schema = SchemaChecking.resolve(p.schema.json)
            guard schema["type"] == "object", let properties = schema["properties"]?.objectValue else { continue }
            let base = SchemaChecking.sample(schema).objectValue!
            let required = schema["required"]?.arrayValue?.compactMap(\.stringValue) ?? []
            func outcome(_ object: JSONObject) -> String? {
                var params = sample(d)
                params[p.name] = .object(object)
                return namedParam(call(d, params))
            }
            for member in required {
                var o = base
                o[member] = nil
                #expect(outcome(o) == "\(p.name).\(member)", "\(name): \(p.name) without \(member)")
            }
            for (member, s) in properties {
                guard let wrong = SchemaChecking.mistyped(s.objectValue!) else { continue }
                var o = base
                o[member] = wrong
                #expect(outcome(o) == "\(p.name).\(member)", "\(name): \(p.name).\(member) = \(wrong)")
            }
            if schema["additionalProperties"] == false {
                var o = base
                o["unlisted"] = 1
                #expect(outcome(o) == "\(p.name).unlisted", "\(name): \(p.name) with an unlisted member")
            }
        }
    }
}
