import JSON
import JSONRPC

/// The method table, built from declarations (Sources/Server/Methods/*Declarations.swift)
/// bound to their handlers. It answers dispatch and describes itself for the OpenRPC document,
/// so the two cannot list different methods. A handler may throw RPCError (sent as is),
/// EngineError (mapped through ErrorTable) or anything else (-32603, details logged only).
public final class MethodTable {
    public struct Entry {
        public typealias Handler = (_ params: Params?, _ isNotification: Bool) throws -> JSON
        public let description: MethodDescription
        let handler: Handler

        init(description: MethodDescription, handler: @escaping Handler) {
            self.description = description
            self.handler = handler
        }
    }

    private var handlers: [String: (run: Entry.Handler, reportsProgress: Bool)] = [:]
    /// Every method and notification, in declaration order (the document's order).
    public private(set) var descriptions: [MethodDescription] = []

    /// Notification name prefixes accepted and ignored (see IgnoredNotificationPrefix).
    public private(set) var ignoredNotificationPrefixes: [IgnoredNotificationPrefix] = []

    public init() {}

    /// The names a client can call (requests and client notifications), sorted.
    public var names: [String] { handlers.keys.sorted() }

    /// The method's handler, and whether it takes `workDoneToken` (its declaration says
    /// `reportsProgress`): one lookup per request answers both.
    public func handler(for method: String) -> (run: Entry.Handler, reportsProgress: Bool)? { handlers[method] }

    /// Adds bound declarations. A second entry for a name is a programming error.
    public func add(_ entries: [Entry]) {
        for entry in entries {
            let name = entry.description.name
            precondition(handlers[name] == nil && !descriptions.contains { $0.name == name }, "\(name) declared twice")
            handlers[name] = (entry.handler, entry.description.reportsProgress)
            descriptions.append(entry.description)
        }
    }

    /// Accepts, and ignores, the notifications whose names start with a declared prefix.
    public func ignore(_ rule: IgnoredNotificationPrefix) {
        precondition(
            !ignoredNotificationPrefixes.contains { $0.prefix == rule.prefix },
            "\(rule.prefix) declared twice")
        ignoredNotificationPrefixes.append(rule)
    }

    /// Whether a notification (never a request) named `method` is ignored without a handler.
    public func ignoresNotification(_ method: String) -> Bool {
        handlers[method] == nil && ignoredNotificationPrefixes.contains { $0.matches(method) }
    }

    /// Lists notifications fetchd sends (they are not dispatched).
    public func declare(_ notifications: [MethodDescription]) {
        for n in notifications {
            precondition(n.direction == .serverToClient, "\(n.name) is not a server notification")
            precondition(!descriptions.contains { $0.name == n.name }, "\(n.name) declared twice")
            descriptions.append(n)
        }
    }
}
