import JSON
import JSONRPC

/// What each tool runs: fetchd's own methods on context `main`, through `MCPHandler.call`,
/// so the engine checks predicates, keys and values exactly as for any client.
extension MCPHandler {
    static let context: JSON = "main"

    func describeModel() throws(MCPToolError) -> JSONObject {
        do { return ["model": try modelJSON()] } catch { throw MCPToolError(error) }
    }

    func fetch(_ a: JSONObject) throws(MCPToolError) -> JSONObject {
        try paged(a) { request in
            var params: JSONObject = ["context": Self.context, "request": .object(request)]
            if let keys = a["keys"] { params["keys"] = keys }
            return params
        }
    }

    func count(_ a: JSONObject) throws(MCPToolError) -> JSONObject {
        let answer = try call(
            ContextDeclarations.count.name, ["context": Self.context, "request": .object(Self.request(a))])
        return answer.objectValue ?? [:]
    }

    func aggregate(_ a: JSONObject) throws(MCPToolError) -> JSONObject {
        try paged(a) { request in
            var params: JSONObject = [
                "context": Self.context, "request": .object(request), "resultType": "dictionary",
                "propertiesToFetch": a["properties"] ?? .array([]),
            ]
            if let groupBy = a["groupBy"] { params["propertiesToGroupBy"] = groupBy }
            if let having = a["having"] { params["havingPredicate"] = having }
            if a["distinct"] == .bool(true) { params["returnsDistinctResults"] = true }
            return params
        }
    }

    func insert(_ a: JSONObject) throws(MCPToolError) -> JSONObject {
        try object(
            ContextDeclarations.insert.name,
            ["context": Self.context, "entity": a["entity"] ?? .null, "values": a["values"] ?? .null])
    }

    func update(_ a: JSONObject) throws(MCPToolError) -> JSONObject {
        try object(
            ContextDeclarations.update.name,
            ["context": Self.context, "id": a["id"] ?? .null, "values": a["values"] ?? .null])
    }

    func delete(_ a: JSONObject) throws(MCPToolError) -> JSONObject {
        _ = try call(ContextDeclarations.delete.name, ["context": Self.context, "id": a["id"] ?? .null])
        return ["deleted": a["id"] ?? .null]
    }

    func save() throws(MCPToolError) -> JSONObject {
        try object(ContextDeclarations.save.name, ["context": Self.context])
    }

    /// At most `maxRows` transactions; `more` says to ask again after the last token.
    func history(_ a: JSONObject) throws(MCPToolError) -> JSONObject {
        var limit = Int64(configuration.maxRows)
        if case .integer(let asked)? = a["limit"], asked > 0 { limit = min(asked, limit) }
        return try object(
            HistoryDeclarations.history.name, ["after": a["after"] ?? .integer(0), "limit": .integer(limit)])
    }

    func openController(_ a: JSONObject) throws(MCPToolError) -> JSONObject {
        let name = a["name"]?.stringValue ?? ""
        var request = Self.request(a)
        if let limit = a["limit"] { request["fetchLimit"] = limit }
        var params: JSONObject = [
            "context": Self.context, "name": .string(name), "request": .object(request),
            // Ids only: a subscriber is told that the rows changed and reads the resource again.
            "notify": ["mode": "difference", "objects": false],
        ]
        if let section = a["section"] { params["sectionNameKeyPath"] = section }
        var answer = try object(ControllerDeclarations.create.name, params)
        controllers.append((name, a["entity"]?.stringValue ?? ""))
        subscriptions.noteListChanged()
        answer["uri"] = .string(MCPResources.controllerURI(name))
        return answer
    }

    func closeController(_ a: JSONObject) throws(MCPToolError) -> JSONObject {
        let name = a["name"]?.stringValue ?? ""
        _ = try call(ControllerDeclarations.close.name, ["controller": .string(name)])
        controllers.removeAll { $0.name == name }
        subscriptions.noteListChanged()
        return ["closed": .string(name)]
    }

    private func object(_ method: String, _ params: JSONObject) throws(MCPToolError) -> JSONObject {
        let answer = try call(method, params)
        return answer.objectValue ?? ["result": answer]
    }

    /// A fetch request from the tool's arguments: entity, predicate, variables, sort.
    static func request(_ a: JSONObject) -> JSONObject {
        var request: JSONObject = ["entity": a["entity"] ?? .null]
        if let predicate = a["predicate"] { request["predicate"] = predicate }
        if let variables = a["variables"] { request["variables"] = variables }
        if let sort = a["sort"]?.arrayValue { request["sortDescriptors"] = .array(sort.map(sortDescriptor)) }
        return request
    }

    /// `"-age"` → `{key: "age", ascending: false}`; `"name:caseInsensitiveCompare"` adds a comparator.
    static func sortDescriptor(_ item: JSON) -> JSON {
        var text = item.stringValue ?? ""
        var descriptor = JSONObject()
        var descending = false
        if text.hasPrefix("-") {
            descending = true
            text.removeFirst()
        }
        let parts = text.split(separator: ":", maxSplits: 1)
        descriptor["key"] = .string(parts.first.map(String.init) ?? "")
        if descending { descriptor["ascending"] = false }
        if parts.count == 2 { descriptor["comparator"] = .string(String(parts[1])) }
        return .object(descriptor)
    }

    /// One page of a fetch: at most `maxRows` objects from the cursor's offset (or `offset`),
    /// within `limit`; one object more is read to know whether to hand out a `nextCursor`.
    private func paged(_ a: JSONObject, _ params: (JSONObject) -> JSONObject) throws(MCPToolError) -> JSONObject {
        var start: Int64 = 0
        var remaining: Int64?
        if case .integer(let o)? = a["offset"] { start = o }
        if case .integer(let l)? = a["limit"], l > 0 { remaining = l }
        if let cursor = a["cursor"]?.stringValue {
            guard let position = MCPCursor(cursor) else {
                throw MCPToolError(
                    kind: "invalidParams", "Invalid argument cursor: not a cursor fetchd handed out",
                    ["param": "cursor", "got": .string(cursor)])
            }
            start = position.offset
            remaining = position.remaining
        }
        let page = min(Int64(configuration.maxRows), remaining ?? Int64.max)
        var request = Self.request(a)
        request["fetchOffset"] = .integer(start)
        let probesMore = remaining.map { $0 > page } ?? true
        request["fetchLimit"] = .integer(probesMore ? page + 1 : page)
        let answer = try call(ContextDeclarations.fetch.name, params(request))
        var objects = answer["objects"]?.arrayValue ?? []
        var result: JSONObject = [:]
        if objects.count > page {
            objects.removeLast(objects.count - Int(page))
            let next = MCPCursor(offset: start + page, remaining: remaining.map { $0 - page })
            result["objects"] = .array(objects)
            result["nextCursor"] = .string(next.text)
        } else {
            result["objects"] = .array(objects)
        }
        return result
    }
}

/// Where the next page starts: `"200"`, or `"200+50"` when a limit leaves 50 objects to give.
struct MCPCursor {
    let offset: Int64
    let remaining: Int64?

    init(offset: Int64, remaining: Int64?) {
        self.offset = offset
        self.remaining = remaining
    }

    init?(_ text: String) {
        let parts = text.split(separator: "+", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let offset = Int64(parts[0]), offset >= 0 else { return nil }
        self.offset = offset
        if parts.count == 2 {
            guard let remaining = Int64(parts[1]), remaining > 0 else { return nil }
            self.remaining = remaining
        } else {
            remaining = nil
        }
    }

    var text: String { remaining.map { "\(offset)+\($0)" } ?? "\(offset)" }
}
