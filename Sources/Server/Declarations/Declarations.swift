import JSON
import JSONRPC
import Model

/// One by-name parameter as the OpenRPC document lists it.
public struct ParamSpec: Sendable {
    public let name: String
    public let required: Bool
    public let schema: Schema
    public let description: String?

    public init(_ name: String, required: Bool, _ schema: Schema, _ description: String? = nil) {
        self.name = name
        self.required = required
        self.schema = schema
        self.description = description
    }

    public static func required(_ name: String, _ schema: Schema, _ description: String? = nil) -> ParamSpec {
        ParamSpec(name, required: true, schema, description)
    }

    public static func optional(_ name: String, _ schema: Schema, _ description: String? = nil) -> ParamSpec {
        ParamSpec(name, required: false, schema, description)
    }
}

/// Params a method (or notification) takes, listed for the document: the specs of its
/// `Param` keys (`ParamSpec.list`), which are also what its decoder reads, so the list and
/// the decoder name the same params with the same schemas.
public protocol RPCParamsDescribing {
    static var params: [ParamSpec] { get }
}

/// Params decoded from a request through ParamReader (a param its schema refuses is -32602
/// naming it), the names they carry resolved in `scope` as they are read, in the order the
/// method has always checked them.
public protocol RPCParams: RPCParamsDescribing {
    init(params: ParamReader, in scope: ParamScope) throws
}

/// Params that name nothing to resolve.
public protocol PlainParams: RPCParams {
    init(params: ParamReader) throws
}

extension PlainParams {
    public init(params: ParamReader, in scope: ParamScope) throws { try self.init(params: params) }
}

/// No params at all (anything sent by name is ignored, as LSP clients send `null` or `{}`).
public struct NoParams: PlainParams, Sendable {
    public static let params: [ParamSpec] = []
    public init(params: ParamReader) throws {}
    public init() {}
}

/// A result: its JSON and its schema (ResultSchemaTests checks every recorded answer against it).
public protocol RPCResult: JSONEncodable {
    static var resultName: String { get }
    static var schema: Schema { get }
}

/// Params a server-to-client notification carries.
public protocol NotificationPayload: RPCParamsDescribing, JSONEncodable {}

/// An error a method may answer: `{code, message: kind}` in the document.
public struct ErrorKind: Equatable, Sendable {
    public let code: Int
    public let kind: String

    public static let invalidParams = ErrorKind(code: RPCError.invalidParamsCode, kind: "invalidParams")
    public static let initializeNotFirst = ErrorKind(code: RPCError.invalidRequestCode, kind: "initializeNotFirst")
    public static let alreadyInitialized = ErrorKind(code: RPCError.invalidRequestCode, kind: "alreadyInitialized")

    public static func engine(_ kind: EngineError.Kind) -> ErrorKind {
        ErrorKind(code: ErrorTable.code(for: kind), kind: kind.rawValue)
    }
}

/// A client-to-server request: wire name, params, result, the errors it may answer and a
/// one-line summary. Bound to a handler with `handle`, it becomes a MethodTable entry.
public struct MethodDeclaration<P: RPCParams, R: RPCResult>: Sendable {
    public let name: String
    public let summary: String
    public let errors: [ErrorKind]
    /// Long work: the method takes `workDoneToken` and reports `$/progress` under it.
    public let reportsProgress: Bool

    public init(_ name: String, _ summary: String, errors: [ErrorKind], reportsProgress: Bool = false) {
        self.name = name
        self.summary = summary
        self.errors = errors
        self.reportsProgress = reportsProgress
    }

    public var description: MethodDescription {
        MethodDescription(
            name: name, summary: summary,
            params: P.params + (reportsProgress ? [ProgressDeclarations.workDoneToken.spec] : []),
            result: (R.resultName, R.schema), errors: errors, direction: nil, reportsProgress: reportsProgress)
    }

    public func handle(in scope: ParamScope, _ body: @escaping (P) throws -> R) -> MethodTable.Entry {
        MethodTable.Entry(description: description) { params, _ in
            try body(try P(params: ParamReader(params: params, listed: P.params), in: scope)).json
        }
    }
}

extension MethodDeclaration where P: PlainParams {
    public func handle(_ body: @escaping (P) throws -> R) -> MethodTable.Entry {
        MethodTable.Entry(description: description) { params, _ in
            try body(try P(params: ParamReader(params: params, listed: P.params))).json
        }
    }
}

/// Who sends a notification.
public enum Direction: String, Sendable {
    case serverToClient
    case clientToServer
}

/// A notification fetchd sends; queued through `Server.send(_:_:)` only.
public struct ServerNotification<P: NotificationPayload>: Sendable {
    public let name: String
    public let summary: String

    public init(_ name: String, _ summary: String) {
        self.name = name
        self.summary = summary
    }

    public var description: MethodDescription {
        MethodDescription(
            name: name, summary: summary, params: P.params, result: nil, errors: [],
            direction: .serverToClient)
    }

    public func message(_ params: P) -> OutgoingNotification {
        OutgoingNotification(method: name, params: params.json)
    }
}

extension ServerNotification where P: EncodedParams {
    /// Params that write their own bytes go out that way; their `json` is built only if read.
    public func message(_ params: P) -> OutgoingNotification {
        OutgoingNotification(method: name, encoded: params)
    }
}

/// A notification fetchd accepts. Sent with an id it is a request fetchd does not have
/// (-32601), unless `answersRequests` (LSP's `exit`, which is answered `null` first).
public struct ClientNotification<P: PlainParams>: Sendable {
    public let name: String
    public let summary: String
    public let answersRequests: Bool

    public init(_ name: String, _ summary: String, answersRequests: Bool = false) {
        self.name = name
        self.summary = summary
        self.answersRequests = answersRequests
    }

    public var description: MethodDescription {
        MethodDescription(
            name: name, summary: summary, params: P.params, result: nil, errors: [],
            direction: .clientToServer)
    }

    public func handle(_ body: @escaping (P) throws -> Void) -> MethodTable.Entry {
        MethodTable.Entry(description: description) { [name, answersRequests] params, isNotification in
            guard isNotification || answersRequests else { throw RPCError.methodNotFound(name) }
            try body(try P(params: ParamReader(params: params, listed: P.params)))
            return .null
        }
    }
}

/// Notifications accepted by a name prefix instead of one declaration each: LSP lets a server
/// ignore every `$/` notification (`$/setTrace`, `$/progress`, ...), and editors send them
/// unasked. Only notifications match: a request with such a name is still unknown (-32601),
/// since a request must be answered. A name declared on its own keeps its own handler.
public struct IgnoredNotificationPrefix: Sendable {
    public let prefix: String
    public let summary: String

    public init(_ prefix: String, _ summary: String) {
        self.prefix = prefix
        self.summary = summary
    }

    public func matches(_ method: String) -> Bool { method.hasPrefix(prefix) }
}

/// What the document says of one method or notification.
public struct MethodDescription: Sendable {
    public let name: String
    public let summary: String
    public let params: [ParamSpec]
    public let result: (name: String, schema: Schema)?
    public let errors: [ErrorKind]
    public let direction: Direction?
    public var reportsProgress = false
}
