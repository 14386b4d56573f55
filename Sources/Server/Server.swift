import JSON
import JSONRPC
import Logging
import Model

/// fetchd's request handler: the method table, the lifecycle, and the change-cycle machinery
/// the engine plugs into. Single-threaded: one message at a time, in arrival order.
///
/// Method areas (Sources/Server/Methods/*Methods.swift) register their methods in
/// `registerAllMethods()`, keep their state in `shared(_:)`, close the cycle with
/// `onEndOfCycle` and release resources with `onClose`.
public final class Server: MessageHandler {
    public struct Configuration: Sendable {
        public var version: String
        public init(version: String = FetchdVersion.current) { self.version = version }
    }

    public let configuration: Configuration
    public let methods = MethodRegistry()
    public var logger: Logger
    /// `capabilities` in the `initialize` result; method areas add their entries.
    public var capabilities: JSONObject = ["batch": true]

    public internal(set) var lifecycle = Lifecycle()
    public private(set) var exitCode: Int32?

    private var queued: [OutgoingNotification] = []
    private var endOfCycleHooks: [() -> [OutgoingNotification]] = []
    private var closeHooks: [() -> Void] = []
    private var closed = false
    private var sharedState: [ObjectIdentifier: AnyObject] = [:]

    public init(configuration: Configuration = Configuration(), logger: Logger = Logger(label: "fetchd.server")) {
        self.configuration = configuration
        self.logger = logger
        registerAllMethods()
    }

    // MARK: Hooks for method areas

    /// Queues a server-to-client notification. It is written before the response of the
    /// message being handled, after the notifications queued before it.
    public func notify(_ method: String, _ params: JSON? = nil) {
        queued.append(OutgoingNotification(method: method, params: params))
    }

    /// Runs after each top-level message (one request or notification, or a whole batch),
    /// before its responses are written; the notifications it returns go out first, in order
    /// of hook registration. This is where dirty contexts process their pending changes.
    public func onEndOfCycle(_ hook: @escaping () -> [OutgoingNotification]) {
        endOfCycleHooks.append(hook)
    }

    /// Runs once when the process ends: `exit`, end of input, SIGTERM/SIGINT.
    public func onClose(_ hook: @escaping () -> Void) {
        closeHooks.append(hook)
    }

    /// One instance of `T` per server, made on first use: state shared between method areas
    /// (the controllers reach the contexts' state this way).
    public func shared<T: AnyObject>(_ type: T.Type = T.self, make: () -> T) -> T {
        if let existing = sharedState[ObjectIdentifier(T.self)] { return existing as! T }
        let made = make()
        sharedState[ObjectIdentifier(T.self)] = made
        return made
    }

    /// Calls a method in-process, as a request would, without lifecycle checks. Used for
    /// start-up work such as `--store/--model` (which calls `store/open`).
    public func call(_ method: String, _ params: JSON? = nil) -> Result<JSON, RPCError> {
        guard let handler = methods.handler(for: method) else { return .failure(.methodNotFound(method)) }
        let wire: Params?
        switch params {
        case .object(let o)?: wire = .byName(o)
        case .array(let a)?: wire = .byPosition(a)
        default: wire = nil
        }
        return invoke(handler, wire, method: method)
    }

    /// Runs the close hooks once (later calls do nothing).
    public func close() {
        guard !closed else { return }
        closed = true
        for hook in closeHooks { hook() }
    }

    // MARK: MessageHandler

    public func handle(_ request: Request) -> Result<JSON, RPCError> {
        if let refusal = lifecycle.refusal(of: request) { return .failure(refusal) }
        let outcome: Result<JSON, RPCError>
        if let handler = methods.handler(for: request.method) {
            outcome = invoke(handler, request.params, method: request.method)
        } else {
            outcome = .failure(.methodNotFound(request.method))
        }
        lifecycle.record(request, succeeded: (try? outcome.get()) != nil)
        return outcome
    }

    public func endOfCycle() {
        for hook in endOfCycleHooks { queued.append(contentsOf: hook()) }
    }

    public func takeNotifications() -> [OutgoingNotification] {
        guard !queued.isEmpty else { return [] }
        let taken = queued
        queued = []
        return taken
    }

    func requestExit(_ code: Int32) { exitCode = code }

    private func invoke(_ handler: MethodRegistry.Handler, _ params: Params?, method: String) -> Result<JSON, RPCError> {
        do {
            return .success(try handler(params))
        } catch let error as RPCError {
            return .failure(error)
        } catch let error as EngineError {
            return .failure(ErrorTable.rpcError(error))
        } catch {
            logger.error("\(method) failed unexpectedly: \(error)")
            return .failure(.internalError("\(method) failed unexpectedly"))
        }
    }
}
