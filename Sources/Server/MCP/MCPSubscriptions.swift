import JSON
import JSONRPC

/// Who hears of which resource, in both eras, and what changed in the cycle being closed.
/// A change is a level trigger ("read it again"): one update per resource per cycle, however
/// many notifications the controller sent in it.
final class MCPSubscriptions {
    /// A `subscriptions/listen` stream (2026-07-28): what it asked for and was granted.
    struct Stream {
        let id: RequestID
        let uris: Set<String>
        let listChanged: Bool
    }

    private(set) var streams: [Stream] = []
    /// `resources/subscribe` (the handshake era).
    private var subscribed: Set<String> = []
    /// Resources whose contents changed in this cycle, in the order first seen.
    private var updated: [String] = []
    private var listChanged = false

    /// A controller's cycle (any of its notifications, `controller/didFailToFetch` included)
    /// changes its resource.
    func noteServer(_ message: OutgoingNotification) {
        guard message.method.hasPrefix("controller/"), let name = message.params?["controller"]?.stringValue else {
            return
        }
        let uri = MCPResources.controllerURI(name)
        if !updated.contains(uri) { updated.append(uri) }
    }

    func noteListChanged() { listChanged = true }

    func subscribe(_ uri: String) { subscribed.insert(uri) }
    func unsubscribe(_ uri: String) { subscribed.remove(uri) }

    func openStream(_ stream: Stream) {
        streams.removeAll { $0.id == stream.id }
        streams.append(stream)
    }

    /// The client cancelled its listen request: the stream ends, unanswered (MCP's cancellation).
    func endStream(_ id: RequestID) { streams.removeAll { $0.id == id } }

    /// The cycle's notifications for this connection's era, then a clean slate.
    func take(revision: MCPRevision?) -> [OutgoingNotification] {
        defer {
            updated.removeAll()
            listChanged = false
        }
        guard !updated.isEmpty || listChanged else { return [] }
        var out: [OutgoingNotification] = []
        if revision == .modern {
            for uri in updated {
                for stream in streams where stream.uris.contains(uri) {
                    out.append(Self.updatedMessage(uri, stream: stream.id))
                }
            }
            if listChanged {
                for stream in streams where stream.listChanged {
                    out.append(
                        OutgoingNotification(
                            method: "notifications/resources/list_changed", params: ["_meta": Self.tag(stream.id)]))
                }
            }
        } else {
            for uri in updated where subscribed.contains(uri) { out.append(Self.updatedMessage(uri, stream: nil)) }
            if listChanged { out.append(OutgoingNotification(method: "notifications/resources/list_changed")) }
        }
        return out
    }

    private static func updatedMessage(_ uri: String, stream: RequestID?) -> OutgoingNotification {
        var params: JSONObject = ["uri": .string(uri)]
        if let stream { params["_meta"] = tag(stream) }
        return OutgoingNotification(method: "notifications/resources/updated", params: .object(params))
    }

    /// The `_meta` that ties a frame to its listen stream: the listen request's id.
    static func tag(_ stream: RequestID) -> JSON { [MCPRevision.subscriptionKey: stream.json] }
}

extension MCPHandler {
    func subscribe(_ call: MCPCall) throws -> JSON {
        subscriptions.subscribe(try MCPResources.subscribable(call.params["uri"]))
        return .object([:])
    }

    func unsubscribe(_ call: MCPCall) throws -> JSON {
        subscriptions.unsubscribe(try MCPResources.subscribable(call.params["uri"]))
        return .object([:])
    }

    /// Opens a stream and acknowledges it with what fetchd honors of the filter: resource
    /// subscriptions to its own URIs and the resource list's changes (its tools and prompts
    /// never change, so those are left out, as the specification asks).
    func listen(_ call: MCPCall) throws -> JSON {
        guard let id = call.request.id else { return .null }
        guard case .object(let filter)? = call.params["notifications"] else {
            throw RPCError.invalidParams(
                param: "notifications", expected: "object", got: call.params["notifications"]?.typeName ?? "missing")
        }
        var honored = JSONObject()
        let wanted = filter["resourceSubscriptions"]?.arrayValue ?? []
        let uris = wanted.compactMap { try? MCPResources.subscribable($0) }
        if !uris.isEmpty { honored["resourceSubscriptions"] = .array(uris.map(JSON.string)) }
        let listChanged = filter["resourcesListChanged"] == .bool(true)
        if listChanged { honored["resourcesListChanged"] = true }
        subscriptions.openStream(.init(id: id, uris: Set(uris), listChanged: listChanged))
        queued.append(
            OutgoingNotification(
                method: "notifications/subscriptions/acknowledged",
                params: ["notifications": .object(honored), "_meta": MCPSubscriptions.tag(id)]))
        return .null
    }
}
