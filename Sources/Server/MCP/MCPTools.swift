import JSON
import JSONRPC

/// One tool: its name, what it tells a model, its input schema (the same `Schema` values
/// fetchd's params use, so the schema listed is the one checked), and what it runs.
struct MCPTool: Sendable {
    let name: String
    let description: String
    let input: Schema
    /// Changes data: refused under `--read-only`.
    var writes = false
    let run: @Sendable (MCPHandler, JSONObject) throws -> JSONObject
}

/// The tools, in the order `tools/list` gives them. Each is declared here once.
enum MCPTools {
    static let all: [MCPTool] = [
        MCPTool(
            name: "describe_model",
            description: "The store's model: each entity with its attributes (type, optional, default) and "
                + "relationships (destination, to-many, inverse). Call it first.",
            input: args([])
        ) { mcp, _ in try mcp.describeModel() },
        MCPTool(
            name: "fetch",
            description: "Objects of an entity matching a predicate, sorted, as {objects: [{id, key: value...}]}. "
                + "At most the server's row limit per answer: pass nextCursor back as cursor (with the same "
                + "other arguments) for the rest.",
            input: args(
                [
                    entity, predicate, variables, sort, ("limit", limit), ("offset", offset),
                    ("keys", keys), ("cursor", cursor),
                ], required: ["entity"])
        ) { mcp, a in try mcp.fetch(a) },
        MCPTool(
            name: "count",
            description: "How many objects of an entity match a predicate, as {count}.",
            input: args([entity, predicate, variables], required: ["entity"])
        ) { mcp, a in try mcp.count(a) },
        MCPTool(
            name: "aggregate",
            description: "A dictionary fetch: rows of the given properties, key paths or aggregates "
                + "({name, function: count|sum|average|min|max, keyPath}), grouped by groupBy, filtered "
                + "after grouping by having. Paged like fetch.",
            input: args(
                [
                    entity, ("properties", properties), ("groupBy", keys.describe("Key paths to group by.")),
                    ("having", predicateSchema.describe("A predicate over the grouped rows.")), predicate, variables,
                    sort, ("distinct", Schema.boolean.describe("Drop repeated rows.")), ("limit", limit),
                    ("cursor", cursor),
                ], required: ["entity", "properties"])
        ) { mcp, a in try mcp.aggregate(a) },
        MCPTool(
            name: "insert",
            description: "Inserts an object into the main context (unsaved until save), as {object}.",
            input: args([entity, ("values", values)], required: ["entity", "values"]), writes: true
        ) { mcp, a in try mcp.insert(a) },
        MCPTool(
            name: "update",
            description: "Sets values of an object by id in the main context (unsaved until save), as {object}.",
            input: args([("id", id), ("values", values)], required: ["id", "values"]), writes: true
        ) { mcp, a in try mcp.update(a) },
        MCPTool(
            name: "delete",
            description: "Deletes an object by id from the main context (unsaved until save), "
                + "following the model's delete rules.",
            input: args([("id", id)], required: ["id"]), writes: true
        ) { mcp, a in try mcp.delete(a) },
        MCPTool(
            name: "save",
            description: "Writes the main context's changes to the store in one transaction, after the "
                + "model's validation; a refused save writes nothing.",
            input: args([]), writes: true
        ) { mcp, _ in try mcp.save() },
        MCPTool(
            name: "history",
            description: "The store's committed transactions after a token (0: from the start), as "
                + "{transactions: [{token, author, time, changes}], more}; pass the last token as after "
                + "for more.",
            input: args([
                ("after", Schema.integer.minimum(0).describe("A history token; 0 by default.")), ("limit", limit),
            ])
        ) { mcp, a in try mcp.history(a) },
        MCPTool(
            name: "open_controller",
            description: "Keeps a query live: its rows become the resource fetchd://controller/NAME, updated "
                + "(a resource update to subscribers) whenever they change, by this session or another process.",
            input: args(
                [
                    ("name", controllerName), entity, predicate, variables, sort, ("limit", limit),
                    ("section", Schema.string.minLength(1).describe("A key path whose values name the sections.")),
                ], required: ["name", "entity"])
        ) { mcp, a in try mcp.openController(a) },
        MCPTool(
            name: "close_controller",
            description: "Closes a controller opened with open_controller; its resource goes away.",
            input: args([("name", controllerName)], required: ["name"])
        ) { mcp, a in try mcp.closeController(a) },
    ]

    static let byName = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

    /// Controller names go into URIs unescaped, so they stay within URI-safe characters.
    static func isControllerName(_ s: String) -> Bool {
        !s.isEmpty && s.count <= 100
            && s.unicodeScalars.allSatisfy {
                ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)))
                    || "_.-".unicodeScalars.contains($0)
            }
    }

    private static func args(_ properties: [(String, Schema)], required: [String] = []) -> Schema {
        Schema.object(properties, required: required, closed: true)
    }

    private static let predicateSchema = Schema.string.minLength(1)
    private static let entity = (
        "entity", Schema.string.minLength(1).describe("An entity name (describe_model lists them).")
    )
    private static let predicate = (
        "predicate",
        predicateSchema.describe(
            "A predicate in fetchd's NSPredicate-like language: \"age >= 18 AND name BEGINSWITH[c] 'a'\", "
                + "\"group.title == $t\", \"ANY tags.name IN {'x', 'y'}\".")
    )
    private static let variables = (
        "variables", Schema.type("object").describe("Values of the predicate's $variables, by name.")
    )
    private static let sort = (
        "sort",
        Schema.array(Schema.string.minLength(1)).describe(
            "Keys to sort by, in order: \"name\" ascending, \"-age\" descending; \"name:caseInsensitiveCompare\" "
                + "picks a comparator.")
    )
    private static let limit = Schema.integer.minimum(0).describe("The most objects in all (0: no limit).")
    private static let offset = Schema.integer.minimum(0).describe("Objects to skip first.")
    private static let keys = Schema.array(Schema.string.minLength(1)).describe(
        "The keys each object carries (all by default).")
    private static let cursor = Schema.string.minLength(1).describe("nextCursor of the previous answer.")
    private static let values = Schema.type("object").describe("Values by key: attributes, and relationships as ids.")
    private static let id = Components.objectID.describe("An object id, \"Entity/N\".")
    private static let controllerName = Schema.string.pattern(
        "^[A-Za-z0-9_.-]{1,100}$", "a name of letters, digits, _ . or -", MCPTools.isControllerName
    ).describe("The controller's name; its resource is fetchd://controller/NAME.")
    private static let properties = Schema.array(
        Schema.oneOf(
            Schema.string.minLength(1),
            Schema.object(
                [
                    ("name", Schema.string.minLength(1)),
                    ("function", Schema.strings(["count", "sum", "average", "min", "max"])),
                    ("keyPath", Schema.string.minLength(1)),
                ], required: ["name", "function", "keyPath"], closed: true))
    ).describe("Key paths, or aggregates {name, function, keyPath}.")
}

extension MCPHandler {
    func listTools() -> JSON {
        let tools = MCPTools.all.map { tool -> JSON in
            var o: JSONObject = [
                "name": .string(tool.name), "description": .string(tool.description),
                "inputSchema": .object(tool.input.json),
            ]
            o["annotations"] = ["readOnlyHint": .bool(!tool.writes)]
            return .object(o)
        }
        return ["tools": .array(tools)]
    }

    /// An unknown tool or arguments that are not an object are protocol errors; everything
    /// the tool itself refuses is an `isError` result, and such a call changes nothing.
    func callTool(_ call: MCPCall) throws -> JSON {
        guard case .string(let name)? = call.params["name"] else {
            throw RPCError.invalidParams(
                param: "name", expected: "string", got: call.params["name"]?.typeName ?? "missing")
        }
        guard let tool = MCPTools.byName[name] else {
            throw RPCError(
                code: RPCError.invalidParamsCode, message: "Unknown tool: \(name)",
                data: ["kind": "unknownTool", "tool": .string(name)])
        }
        let arguments: JSONObject
        switch call.params["arguments"] {
        case nil, .null?: arguments = [:]
        case .object(let o)?: arguments = o
        case let other?: throw RPCError.invalidParams(param: "arguments", expected: "object", got: other.typeName)
        }
        if tool.writes, configuration.readOnly {
            return MCPToolResult.failure(
                MCPToolError(
                    kind: "readOnly", "fetchd mcp runs with --read-only: \(name) is refused and nothing was changed",
                    ["tool": .string(name)]))
        }
        do {
            try tool.input.check(.object(arguments), at: "arguments")
        } catch {
            return MCPToolResult.failure(MCPToolError(Self.argumentError(error)))
        }
        do {
            return MCPToolResult.success(try tool.run(self, arguments))
        } catch let error as MCPToolError {
            return MCPToolResult.failure(error)
        }
    }

    /// Names the argument as the tool's schema does (`limit`, `sort[1]`), not `arguments.limit`.
    private static func argumentError(_ error: RPCError) -> RPCError {
        guard case .object(var data)? = error.data, let param = data["param"]?.stringValue else { return error }
        let name = param.hasPrefix("arguments.") ? String(param.dropFirst("arguments.".count)) : param
        data["param"] = .string(name)
        var message = "Invalid argument \(name)"
        if let expected = data["expected"]?.stringValue, let got = data["got"]?.stringValue {
            message += ": expected \(expected), got \(got)"
        }
        return RPCError(code: error.code, message: message, data: .object(data))
    }
}
