import JSON
import JSONRPC

/// The resources: the model, and one per controller opened with `open_controller`, whose
/// contents are its rows by section.
enum MCPResources {
    static let modelURI = "fetchd://model"
    static let controllerPrefix = "fetchd://controller/"
    static let mimeType = "application/json"

    static func controllerURI(_ name: String) -> String { controllerPrefix + name }

    /// A URI fetchd can serve now or once its controller opens (a client may subscribe first).
    static func subscribable(_ value: JSON?) throws(RPCError) -> String {
        guard case .string(let uri)? = value else {
            throw RPCError.invalidParams(param: "uri", expected: "string", got: value?.typeName ?? "missing")
        }
        if uri == modelURI { return uri }
        if uri.hasPrefix(controllerPrefix), MCPTools.isControllerName(String(uri.dropFirst(controllerPrefix.count))) {
            return uri
        }
        throw notFound(uri)
    }

    static func notFound(_ uri: String) -> RPCError {
        RPCError(code: MCPRevision.resourceNotFoundCode, message: "Resource not found", data: ["uri": .string(uri)])
    }
}

extension MCPHandler {
    func listResources() -> JSON {
        var resources: [JSON] = [
            [
                "uri": .string(MCPResources.modelURI), "name": "model", "title": "The store's model",
                "description": "Entities, attributes and relationships (as describe_model answers).",
                "mimeType": .string(MCPResources.mimeType),
            ]
        ]
        for c in controllers {
            resources.append([
                "uri": .string(MCPResources.controllerURI(c.name)), "name": .string(c.name),
                "description": .string("The live rows of controller \(c.name) over \(c.entity), by section."),
                "mimeType": .string(MCPResources.mimeType),
            ])
        }
        return ["resources": .array(resources)]
    }

    func listTemplates() -> JSON {
        [
            "resourceTemplates": [
                [
                    "uriTemplate": .string(MCPResources.controllerPrefix + "{name}"), "name": "controller",
                    "description": "A controller opened with open_controller: its rows, by section.",
                    "mimeType": .string(MCPResources.mimeType),
                ]
            ]
        ]
    }

    func readResource(_ call: MCPCall) throws -> JSON {
        guard case .string(let uri)? = call.params["uri"] else {
            throw RPCError.invalidParams(
                param: "uri", expected: "string", got: call.params["uri"]?.typeName ?? "missing")
        }
        let contents: JSON
        if uri == MCPResources.modelURI {
            contents = try modelJSON()
        } else if uri.hasPrefix(MCPResources.controllerPrefix),
            controllers.contains(where: { MCPResources.controllerURI($0.name) == uri })
        {
            contents = try controllerContents(String(uri.dropFirst(MCPResources.controllerPrefix.count)))
        } else {
            throw MCPResources.notFound(uri)
        }
        return [
            "contents": [
                [
                    "uri": .string(uri), "mimeType": .string(MCPResources.mimeType),
                    "text": .string(contents.serializedString),
                ]
            ]
        ]
    }

    func modelJSON() throws(RPCError) -> JSON {
        guard let graph = server.contexts.graph else {
            throw RPCError(code: RPCError.internalErrorCode, message: "no store is open")
        }
        return WireModel.encode(graph.store.model)
    }

    /// `{count, sections: [{name, indexTitle, numberOfObjects, objects}], truncated?}`: at
    /// most `maxRows` objects in all (`truncated` then; `fetch` pages through the rest).
    func controllerContents(_ name: String) throws -> JSON {
        let answer: JSON
        do { answer = try call(ControllerDeclarations.sections.name, ["controller": .string(name)]) } catch {
            throw error.rpc
        }
        var left = configuration.maxRows
        var sections: [JSON] = []
        var count: Int64 = 0
        var truncated = false
        for (index, section) in (answer["sections"]?.arrayValue ?? []).enumerated() {
            guard case .object(var o) = section, case .integer(let n)? = o["numberOfObjects"] else { continue }
            count += n
            let take = min(Int64(left), n)
            if take < n { truncated = true }
            var objects: [JSON] = []
            if take > 0 {
                let rows: JSON
                do {
                    rows = try call(
                        ControllerDeclarations.rows.name,
                        ["controller": .string(name), "section": .integer(Int64(index)), "limit": .integer(take)])
                } catch { throw error.rpc }
                objects = rows["objects"]?.arrayValue ?? []
            }
            left -= objects.count
            o["objects"] = .array(objects)
            sections.append(.object(o))
        }
        var result: JSONObject = ["controller": .string(name), "count": .integer(count), "sections": .array(sections)]
        if truncated { result["truncated"] = true }
        return .object(result)
    }
}
