import JSON
import JSONRPC

/// A typed request: its wire name, its params decoded from JSON (missing or mistyped params
/// become -32602 automatically, through ParamReader); the handler's return type is the result,
/// encoded to JSON by its JSONEncodable conformance.
///
///     struct CloseContext: RPCMethod {
///         static let name = "context/close"
///         var context: String
///         init(params: ParamReader) throws { context = try params.string("context") }
///     }
///     server.methods.register(CloseContext.self) { request in ...; return EmptyResult() }
public protocol RPCMethod {
    static var name: String { get }
    init(params: ParamReader) throws
}

/// The method table. A handler may throw RPCError (sent as is), EngineError (mapped through
/// ErrorTable) or anything else (-32603, details logged to stderr only).
public final class MethodRegistry {
    public typealias Handler = (Params?) throws -> JSON

    private var handlers: [String: Handler] = [:]

    public init() {}

    public var names: [String] { handlers.keys.sorted() }

    public func handler(for method: String) -> Handler? { handlers[method] }

    /// Registers a typed request. A second registration of a name is a programming error.
    public func register<M: RPCMethod, R: JSONEncodable>(_ method: M.Type, _ handle: @escaping (M) throws -> R) {
        add(M.name) { params in
            try handle(try M(params: ParamReader(params: params))).json
        }
    }

    /// Registers a method whose params are read inline from a ParamReader.
    public func register<R: JSONEncodable>(_ name: String, _ handle: @escaping (ParamReader) throws -> R) {
        add(name) { params in try handle(try ParamReader(params: params)).json }
    }

    /// Registers a method that sees the raw params (by name or by position).
    public func registerRaw(_ name: String, _ handle: @escaping Handler) {
        add(name, handle)
    }

    private func add(_ name: String, _ handler: @escaping Handler) {
        precondition(handlers[name] == nil, "method \(name) registered twice")
        handlers[name] = handler
    }
}
