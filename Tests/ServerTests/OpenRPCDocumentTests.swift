import Foundation
import JSON
import JSONRPC
import Server
import Testing

/// The OpenRPC document: what rpc.discover answers is the checked-in clients/openrpc.json
/// (regenerate it with `.build/debug/fetchd describe > clients/openrpc.json`), in the shape
/// protocol.md §14 gives, and it describes what the server actually writes.
@Suite struct OpenRPCDocumentTests {
    static let checkedIn = ProtocolExamplesTests.root + "/clients/openrpc.json"
    static let document = Server().openRPCDocument
    static let subset: Set<String> = [
        "type", "properties", "required", "additionalProperties", "items", "enum", "const",
        "oneOf", "$ref", "description", "title", "minimum", "minLength", "minItems", "maxItems", "uniqueItems",
        "pattern", "format", "not",
    ]

    @Test func rpcDiscoverAnswersTheCheckedInDocument() throws {
        let out = Harness(.ndjson).send([#"{"jsonrpc":"2.0","method":"rpc.discover","id":1}"#])
        #expect(out.count == 1)
        #expect(out.first?["result"] == Self.document)
        let file = try String(contentsOfFile: Self.checkedIn, encoding: .utf8)
        #expect(
            file == OpenRPCDocument.pretty(Self.document),
            "clients/openrpc.json is stale: run .build/debug/fetchd describe > clients/openrpc.json")
        #expect(try JSON.parse(Array(file.utf8)) == Self.document)
    }

    @Test func everyMethodHasTheContractShape() throws {
        let methods = try #require(Self.document["methods"]?.arrayValue)
        let names = methods.compactMap { $0["name"]?.stringValue }
        #expect(Set(names).count == names.count)
        #expect(names.contains("rpc.discover"))
        for name in ["exit", "initialized", "$/cancelRequest"] {
            let m = methods.first { $0["name"]?.stringValue == name }
            #expect(m?["x-direction"] == "clientToServer" && m?["x-notification"] == true, "\(name)")
        }
        for m in methods {
            let o = try #require(m.objectValue)
            #expect(o["paramStructure"] == "by-name")
            #expect(o["summary"]?.stringValue?.isEmpty == false)
            let isNotification = o["x-notification"] == true
            #expect(isNotification == (o["result"] == nil), "\(o["name"]!): a result exactly when not a notification")
            #expect(isNotification == (o["x-direction"] != nil))
            if name(o).hasPrefix("controller/did") || name(o).hasPrefix("controller/will") {
                #expect(o["x-direction"] == "serverToClient")
            }
            for e in o["errors"]?.arrayValue ?? [] {
                #expect(e.objectValue?.keys == ["code", "message"])
            }
        }
    }

    func name(_ o: JSONObject) -> String { o["name"]?.stringValue ?? "" }

    @Test func schemasUseOnlyTheSubsetAndEveryRefResolves() throws {
        let components = try #require(Self.document["components"]?["schemas"]?.objectValue)
        for name in [
            "FetchRequest", "SortDescriptor", "SectionInfo", "Object", "Model", "Entity", "Attribute",
            "Relationship", "IndexPath", "ObjectChangeType", "SectionChangeType", "ErrorData",
        ] {
            #expect(components[name] != nil, "no component \(name)")
        }
        func check(_ schema: JSON, _ at: String) {
            guard let o = schema.objectValue else {
                Issue.record("\(at): not an object")
                return
            }
            for key in o.keys { #expect(Self.subset.contains(key), "\(at): \(key) is outside the subset") }
            if let ref = o["$ref"]?.stringValue {
                #expect(
                    ref.hasPrefix("#/components/schemas/") && components[String(ref.dropFirst(21))] != nil,
                    "\(at): \(ref)")
            }
            for (key, value) in o.entries {
                switch key {
                case "properties": for (k, v) in value.objectValue ?? [:] { check(v, "\(at).\(k)") }
                case "items", "additionalProperties", "not": if case .object = value { check(value, "\(at).\(key)") }
                case "oneOf": for v in value.arrayValue ?? [] { check(v, "\(at).oneOf") }
                default: continue
                }
            }
        }
        for (name, schema) in components { check(schema, name) }
        for m in Self.document["methods"]?.arrayValue ?? [] {
            for p in m["params"]?.arrayValue ?? [] { check(p["schema"]!, "\(m["name"]!).\(p["name"]!)") }
            if let r = m["result"] { check(r["schema"]!, "\(m["name"]!) result") }
        }
    }

    /// Every result and every notification the transcripts record fits its declared schema, and
    /// every error they record is one its method declares. `fetchd mcp`'s sessions speak MCP,
    /// whose messages the MCP SDK checks instead (make test-mcp).
    @Test func everyRecordedAnswerFitsItsSchema() {
        let byName = Dictionary(uniqueKeysWithValues: Server().methods.descriptions.map { ($0.name, $0) })
        var checked = 0
        for session in TranscriptCoverageTests.sessions where session.transcript.mcp == nil {
            // Requests are answered in order, so pending ids map answers to methods.
            var pending: [(id: JSON, method: String)] = []
            for message in session.sent {
                if let id = message["id"], let method = message["method"]?.stringValue { pending.append((id, method)) }
            }
            for message in session.written {
                if let method = message["method"]?.stringValue {
                    let d = byName[method]
                    #expect(
                        d?.direction == .serverToClient, "\(session.name): \(method) is not a declared notification")
                    guard let d else { continue }
                    let schema = Schema.object(
                        d.params.map { ($0.name, $0.schema) },
                        required: d.params.filter(\.required).map(\.name), closed: true)
                    let problem = SchemaChecking.problem(message["params"] ?? .null, schema.json)
                    #expect(problem == nil, "\(session.name): \(method) \(problem ?? "")")
                    checked += 1
                    continue
                }
                guard let id = message["id"], let i = pending.firstIndex(where: { $0.id == id }) else { continue }
                let method = pending.remove(at: i).method
                if let error = message["error"], let d = byName[method], case .integer(let code) = error["code"],
                    let kind = error["data"]?["kind"]?.stringValue, !Self.anyMethodErrors.contains(kind)
                {
                    #expect(
                        d.errors.contains { $0.code == Int(code) && $0.kind == kind },
                        "\(session.name): \(method) answered \(kind) (\(code)), which it does not declare")
                }
                guard let result = message["result"], let d = byName[method], let schema = d.result?.schema else {
                    continue
                }
                let problem = SchemaChecking.problem(result, schema.json)
                #expect(problem == nil, "\(session.name): \(method) result \(problem ?? "")")
                checked += 1
            }
        }
        #expect(checked > 500)
    }

    /// Errors any request may get from the session rather than from its method.
    static let anyMethodErrors: Set<String> = [
        "shutdownRequested", "initializeNotFirst", "alreadyInitialized",
        "methodNotFound", "invalidRequest", "parseError", "messageTooLarge",
        "internal",
    ]

    @Test func errorsListedAreTheErrorTablesCodes() {
        for d in Server().methods.descriptions {
            for e in d.errors where e.kind != "invalidParams" && e.code != RPCError.invalidRequestCode {
                #expect(
                    ErrorTable.codes.contains { $0.kind.rawValue == e.kind && $0.code == e.code },
                    "\(d.name): \(e.kind)")
            }
        }
    }
}
