import JSON
import JSONRPC
import Server
import Testing

/// Param objects generated from each method's schema in the OpenRPC document, as a client's
/// generator would make them (SchemaChecking is the client's validator). Valid ones (every
/// required member; each enum value, oneOf choice and JSON type; minimums, lengths, item
/// counts, patterns and formats honoured) are never -32602 invalidParams; ones that break one
/// rule are refused with -32602 naming the param. Values name what the fixture holds (entity,
/// key, context and controller `x`, object `x/1`), so a check reaches every param.
@Suite struct GeneratedParamsTests {
    static let callable = Server().methods.descriptions.filter { $0.direction != .serverToClient }
    static let fixture = DeclarationSchemaTests()

    // MARK: Valid objects

    /// Values a schema accepts: for each enum value, oneOf choice and type, the lowest allowed
    /// number and one above (and -1 where nothing bounds it), text that fits its pattern or
    /// format, arrays of the allowed size.
    static func variants(_ raw: JSONObject) -> [JSON] {
        if raw["$ref"] == "#/components/schemas/ObjectID" { return ["x/1"] }
        let schema = SchemaChecking.resolve(raw)
        var out: [JSON]
        if let values = schema["enum"]?.arrayValue {
            out = values
        } else if let c = schema["const"] {
            out = [c]
        } else if let choices = schema["oneOf"]?.arrayValue {
            out = choices.flatMap { variants($0.objectValue!) }
        } else if let types = schema["type"]?.arrayValue {
            out = types.flatMap { t -> [JSON] in
                var one = schema
                one["type"] = t
                return variants(one)
            }
        } else {
            out = typed(schema)
        }
        return out.filter { SchemaChecking.problem($0, schema) == nil }
    }

    static func typed(_ schema: JSONObject) -> [JSON] {
        switch schema["type"]?.stringValue {
        case "string":
            if schema["pattern"] != nil || schema["format"] != nil { return [SchemaChecking.sample(schema)] }
            return ["x"]
        case "integer":
            guard let minimum = SchemaChecking.number(schema["minimum"]) else { return [0, 1, -1] }
            return [.integer(Int64(minimum)), .integer(Int64(minimum) + 1)]
        case "number": return [0, 1.5]
        case "boolean": return [true, false]
        case "null": return [.null]
        case "array":
            let items = variants(schema["items"]?.objectValue ?? [:])
            if let n = SchemaChecking.number(schema["minItems"]) {
                return items.map { .array(Array(repeating: $0, count: Int(n))) }
            }
            return [.array([items[0]]), .array([])] + items.dropFirst().map { .array([$0]) }
        case "object":
            return objects(schema)
        default:
            let any: [JSON] = ["x", 1, true, [], [:]]
            return schema["not"] == nil ? any + [.null] : any
        }
    }

    /// Required members only, every member, then every member with one member's other
    /// values; an open object also with a member it does not list.
    static func objects(_ schema: JSONObject) -> [JSON] {
        let properties = schema["properties"]?.objectValue ?? [:]
        let required = Set(schema["required"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        let choices = properties.map { ($0.key, meaning[$0.key] ?? variants($0.value.objectValue!)) }
        let all = JSONObject(choices.map { ($0.0, $0.1.first ?? .null) })
        var out: [JSONObject] = [all.keeping { required.contains($0.key) }, all]
        for (name, values) in choices {
            for value in values.dropFirst() {
                var o = all
                o[name] = value
                out.append(o)
            }
        }
        if let additional = schema["additionalProperties"]?.objectValue, !additional.isEmpty {
            out += variants(additional).map { all.adding("member", $0) }
        } else if schema["additionalProperties"] == nil {
            out.append(all.adding("member", 1))
        }
        return out.map(JSON.object)
    }

    /// Strings whose meaning no schema gives: predicates that parse, names not yet taken.
    static let meaning: [String: [JSON]] = ["predicate": ["x != nil"], "havingPredicate": ["x != nil"], "name": ["y"]]

    /// Every param with its first value, as the rules between params want: the base that
    /// objects breaking one rule start from.
    static func allParams(_ d: MethodDescription) -> JSONObject {
        let params = d.params.filter { !(d.name == "store/open" && ($0.name == "url" || $0.name == "schema")) }
        return betweenParams(
            d.name, JSONObject(params.map { ($0.name, (meaning[$0.name] ?? variants($0.schema.json)).first ?? .null) }))
    }

    /// Param objects for a method, each as its rules between params (protocol.md §14) want.
    static func paramObjects(_ d: MethodDescription) -> [JSONObject] {
        let params = d.params.filter { !(d.name == "store/open" && ($0.name == "url" || $0.name == "schema")) }
        let choices = params.map { ($0.name, meaning[$0.name] ?? variants($0.schema.json)) }
        let all = JSONObject(choices.map { ($0.0, $0.1.first ?? .null) })
        var out: [JSONObject] = [all.keeping { m in params.contains { $0.name == m.key && $0.required } }, all]
        for (name, values) in choices {
            for value in values.dropFirst() {
                var o = all
                o[name] = value
                out.append(o)
            }
        }
        var seen = Set<String>()
        return out.map { betweenParams(d.name, $0) }.filter { seen.insert(JSON.object($0).serializedString).inserted }
    }

    /// The rules between params no one param's schema states: store/open in memory (a file
    /// or a server is not the fixture's), dictionary-only params with resultType
    /// "dictionary", rows with keys (and, in batchUpdateObjects, one id per row).
    static func betweenParams(_ method: String, _ params: JSONObject) -> JSONObject {
        var o = params
        switch method {
        case "store/open":
            // A new store (an in-memory one is) needs a model.
            if o["path"] != nil { o["path"] = ":memory:" }
            if o["model"] == nil { o["model"] = ["entities": []] }
        case "context/fetch":
            let dictionaryOnly = [
                "propertiesToFetch", "propertiesToGroupBy", "havingPredicate", "returnsDistinctResults",
            ]
            if dictionaryOnly.contains(where: { o[$0] != nil }) { o["resultType"] = "dictionary" }
        case "store/batchInsert", "store/batchUpdateObjects":
            let rows = o["rows"]?.arrayValue
            if rows != nil, o["keys"] == nil { o["keys"] = ["x"] }
            if method == "store/batchUpdateObjects" {
                o["ids"] = rows.map { .array(Array(repeating: "x/1", count: $0.count)) }
            }
        default: break
        }
        return o
    }

    /// The method's params as one object schema, for the validator.
    static func paramsSchema(_ d: MethodDescription) -> JSONObject {
        var properties = JSONObject()
        for p in d.params { properties[p.name] = .object(p.schema.json) }
        return [
            "type": "object", "properties": .object(properties),
            "required": .array(d.params.filter(\.required).map { .string($0.name) }),
        ]
    }

    enum Outcome: Hashable {
        case accepted
        case invalidParams(String)
        /// Another -32602 kind: the engine refusing a value for what it means (a predicate that
        /// does not parse, a section the controller does not have).
        case engineRefused(String)
        case otherError(String)
    }

    static func outcome(_ r: Result<JSON, RPCError>) -> Outcome {
        guard case .failure(let e) = r else { return .accepted }
        let kind = e.data?["kind"]?.stringValue ?? "?"
        if e.code == -32602 {
            return kind == "invalidParams" ? .invalidParams(e.data?["param"]?.stringValue ?? "?") : .engineRefused(kind)
        }
        return .otherError(kind)
    }

    @Test func schemaValidObjectsAreNeverInvalidParams() {
        var counts: [String: Int] = [:]
        var total = 0
        for d in Self.callable {
            let schema = Self.paramsSchema(d)
            for params in Self.paramObjects(d) {
                if let problem = SchemaChecking.problem(.object(params), schema) {
                    Issue.record("generated an invalid object for \(d.name): \(problem)")
                    continue
                }
                total += 1
                switch Self.outcome(Self.fixture.call(d, params)) {
                case .accepted: counts["accepted", default: 0] += 1
                case .invalidParams(let param):
                    counts["invalidParams", default: 0] += 1
                    Issue.record("\(d.name) refused a schema-valid object (\(param)): \(JSON.object(params))")
                case .engineRefused(let kind): counts["-32602 \(kind)", default: 0] += 1
                case .otherError(let kind): counts[kind, default: 0] += 1
                }
            }
        }
        print("generated \(total) valid param objects: \(counts.sorted { $0.key < $1.key })")
        #expect(total > 250)
        #expect(counts["invalidParams"] == nil)
    }

    /// fetchd reads what each pattern and format of the document lets through (fetchd's own
    /// readings: ObjectID's parser, StoreLocation, ISO8601).
    @Test func patternsAndFormatsFitFetchdsReading() throws {
        let components = try #require(Server().openRPCDocument["components"]?["schemas"])
        let idPattern = try #require(components["ObjectID"]?["pattern"]?.stringValue)
        let get = try #require(Self.callable.first { $0.name == "context/get" })
        for text in ["x/1", "x/01", "x/999999999999999999", "a/b/7", "é x/3", "x/0", "x/", "/1", "x/1.0", "x/-1"] {
            let outcome = Self.outcome(Self.fixture.call(get, ["context": "x", "ids": [.string(text)]]))
            #expect(SchemaChecking.matches(idPattern, text) == (outcome != .invalidParams("ids[0]")), "\(text)")
        }
        let open = try #require(Self.callable.first { $0.name == "store/open" })
        let urlPattern = try #require(open.params.first { $0.name == "url" }?.schema.json["pattern"]?.stringValue)
        for text in ["postgresql://h/db", "postgres:///db?host=/tmp", "postgresql:/h", "mysql://h", "file.sqlite"] {
            #expect(SchemaChecking.matches(urlPattern, text) == StoreLocation.isServerURL(text), "\(text)")
        }
        // RFC 3339 date-times (a leap second aside, which fetchd refuses: protocol.md §14).
        let purge = try #require(Self.callable.first { $0.name == "store/purgeHistory" })
        for text in ["2024-05-01T12:00:00Z", "2024-02-29t23:59:59.999+05:30", "1970-01-01T00:00:00.0-00:00"] {
            #expect(SchemaChecking.isDateTime(text))
            #expect(Self.outcome(Self.fixture.call(purge, ["before": .string(text)])) == .accepted, "\(text)")
        }
    }

    // MARK: Invalid objects

    /// Values of `raw` that break one of its rules, from the valid `value`, each with the
    /// param path fetchd must name (`path` being the value's own).
    static func breaking(_ raw: JSONObject, _ value: JSON, at path: String) -> [(JSON, String)] {
        let schema = SchemaChecking.resolve(raw)
        var out: [(JSON, String)] = []
        if let wrong = SchemaChecking.mistyped(schema) { out.append((wrong, path)) }
        if schema["not"] == ["type": "null"] { out.append((.null, path)) }
        if schema["enum"] != nil { out.append(("no such value", path)) }
        if let minimum = SchemaChecking.number(schema["minimum"]) { out.append((.integer(Int64(minimum) - 1), path)) }
        if schema["minLength"] != nil { out.append(("", path)) }
        if schema["pattern"] != nil { out.append(("no/match", path)) }
        if schema["format"] == "date-time" { out.append(("yesterday", path)) }
        if case .array(let items) = value {
            if let n = SchemaChecking.number(schema["maxItems"]) {
                out.append((.array(Array(repeating: items.first ?? 0, count: Int(n) + 1)), path))
            }
            if let first = items.first, let item = schema["items"]?.objectValue {
                for (bad, at) in breaking(item, first, at: path + "[0]") {
                    out.append((.array([bad] + items.dropFirst()), at))
                }
            }
        }
        if let choices = schema["oneOf"]?.arrayValue {
            for choice in choices.compactMap(\.objectValue) {
                let sample = SchemaChecking.sample(choice)
                if case .object = sample { out += breaking(choice, sample, at: path) }
            }
        }
        if case .object(let o) = value {
            let properties = schema["properties"]?.objectValue ?? [:]
            let required = schema["required"]?.arrayValue?.compactMap(\.stringValue) ?? []
            for name in required {
                var without = o
                without[name] = nil
                out.append((.object(without), "\(path).\(name)"))
            }
            for (name, member) in properties {
                let memberValue = o[name] ?? SchemaChecking.sample(member.objectValue!)
                for (bad, at) in breaking(member.objectValue!, memberValue, at: "\(path).\(name)") {
                    out.append((.object(o.adding(name, bad)), at))
                }
            }
            if schema["additionalProperties"] == false {
                out.append((.object(o.adding("unlisted", 1)), "\(path).unlisted"))
            }
            // `not: {properties: {a: {const: v}}, required: [a, b]}`: b may not come with a = v.
            if let not = schema["not"]?.objectValue, let pinned = not["properties"]?.objectValue {
                var both = o
                for (name, rule) in pinned { both[name] = rule["const"] }
                let barred = not["required"]?.arrayValue?.compactMap(\.stringValue).filter { pinned[$0] == nil } ?? []
                for name in barred { both[name] = SchemaChecking.sample(properties[name]?.objectValue ?? [:]) }
                if let name = barred.last { out.append((.object(both), "\(path).\(name)")) }
            }
        }
        // Only what the validator refuses too.
        return out.filter { SchemaChecking.problem($0.0, raw) != nil }
    }

    /// Params whose rules are stated for clients but refused by the engine with the kind
    /// protocol.md gives, naming the param its own way.
    static func refusedByEngine(_ method: String, _ param: String, _ r: Result<JSON, RPCError>) -> Bool {
        guard case .failure(let e) = r else { return false }
        switch (method, param) {
        case ("store/open", let p) where p.hasPrefix("model"): return e.data?["kind"] == "invalidModel"
        case ("controller/rows", "offset"), ("controller/rows", "limit"), ("controller/rows", "section"):
            return e.code == -32602 && e.data?["kind"] == "invalidValue" && e.data?["key"]?.stringValue == param
        case ("controller/object", "indexPath[0]"):
            return e.code == -32602 && e.data?["kind"] == "invalidValue" && e.data?["key"] == "indexPath"
        default: return false
        }
    }

    @Test func objectsBreakingOneRuleAreRefusedNamingTheParam() {
        var named = 0
        var total = 0
        for d in Self.callable {
            let schema = Self.paramsSchema(d)
            let base = Self.allParams(d)
            var cases: [(JSONObject, String)] = []
            for p in d.params where base[p.name] != nil || p.required {
                let value = base[p.name] ?? SchemaChecking.sample(p.schema.json)
                if p.required {
                    var without = base
                    without[p.name] = nil
                    cases.append((without, p.name))
                }
                for (bad, at) in Self.breaking(p.schema.json, value, at: p.name) {
                    cases.append((base.adding(p.name, bad), at))
                }
            }
            for (params, param) in cases {
                guard SchemaChecking.problem(.object(params), schema) != nil else { continue }
                total += 1
                let r = Self.fixture.call(d, params)
                if case .failure(let e) = r, e.code == -32602, e.data?["kind"] == "invalidParams",
                    e.data?["param"]?.stringValue == param
                {
                    named += 1
                } else if Self.refusedByEngine(d.name, param, r) {
                    named += 1
                } else {
                    Issue.record("\(d.name) with \(param) broken: \(JSON.object(params)) -> \(r)")
                }
            }
        }
        print("generated \(total) param objects breaking one rule: \(named) refused naming the param")
        #expect(total > 200)
    }
}

extension JSONObject {
    fileprivate func keeping(_ keep: ((key: String, value: JSON)) -> Bool) -> JSONObject {
        JSONObject(entries.filter(keep).map { ($0.key, $0.value) })
    }

    fileprivate func adding(_ key: String, _ value: JSON) -> JSONObject {
        var o = self
        o[key] = value
        return o
    }
}
