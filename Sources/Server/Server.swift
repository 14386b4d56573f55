import JSON
import JSONRPC
import Logging
import Model

/// fetchd's request handler: the method table, the lifecycle, and the change-cycle machinery
/// the engine plugs into. Single-threaded: one message at a time, in arrival order.
///
/// The method table is built from the declarations in Sources/Server/Methods (one file of
/// declarations and one of handlers per namespace, listed in `AllMethods.swift`); the same
/// table answers dispatch and `rpc.discover`. State lives in `contexts` and `controllers`,
/// which hear of the server's cycles and of each other through named observer protocols.
public final class Server: MessageHandler {
    public struct Configuration: Sendable {
        public var version: String
        /// When other processes' commits are merged without `store/checkExternalChanges`.
        public var watch: WatchMode
        /// Watch as soon as a store is open, not only once the first request was answered:
        /// for a host (`fetchd watch`) that shows the first rows itself.
        public var watchesFromOpen: Bool
        public init(version: String = FetchdVersion.current, watch: WatchMode = .auto, watchesFromOpen: Bool = false) {
            self.version = version
            self.watch = watch
            self.watchesFromOpen = watchesFromOpen
        }
    }

    public let configuration: Configuration
    /// Progress of the long requests that carry no `workDoneToken`, for a host that shows it
    /// itself (`fetchd exec --progress`); such reports are not sent to the client.
    public var onUntokenedProgress: ((WorkDoneProgress) -> Void)?
    public let methods = MethodTable()
    public var logger: Logger
    /// `capabilities` in the `initialize` result.
    public var capabilities: JSONObject = ["batch": true]
    /// Notifications queued for the message being handled.
    public let outbox = Outbox()
    /// The open store, its contexts and the request compiler (`store/*`, `context/*`).
    public let contexts = ContextsState()
    /// The controllers by name (`controller/*`): the wire side of the engine's
    /// `ControllerRegistry`, which `contexts` makes for each store opened.
    public let controllers: ControllersState

    public internal(set) var lifecycle = Lifecycle()
    public private(set) var exitCode: Int32?
    /// `$/progress` of the requests of the message being handled, ended with its cycle.
    private var progressing: [RequestProgress] = []

    private var observers: [ServerObserver] = []
    let watchState = WatchState()
    private var closed = false
    /// The check under way is the idle one (`checkOutsideWhileIdle`), until its `afterOutput`.
    private(set) var checkingWhileIdle = false

    public init(
        configuration: Configuration = Configuration(),
        logger: Logger = Logger(label: "fetchd.server")
    ) {
        self.configuration = configuration
        self.logger = logger
        controllers = ControllersState(outbox: outbox, logger: logger)
        contexts.addObserver(controllers)
        contexts.addObserver(ExternalAnnouncer(self))
        addObserver(contexts)
        registerAllMethods()
    }

    /// Where params resolve the names they carry (contexts, entities, controllers).
    public var paramScope: ParamScope { ParamScope(contexts: contexts, controllers: controllers) }

    /// Registers for the end of every cycle and for the close, after those registered before.
    public func addObserver(_ observer: ServerObserver) {
        observers.append(observer)
    }

    /// Queues a declared server-to-client notification (written before the current response).
    public func send<P>(_ notification: ServerNotification<P>, _ params: P) {
        outbox.send(notification, params)
    }

    /// Calls a method in-process, as a request would, without lifecycle checks. Used for
    /// start-up work such as `--store/--model` (which calls `store/open`).
    public func call(_ method: String, _ params: JSON? = nil) -> Result<JSON, RPCError> {
        let wire: Params?
        switch params {
        case .object(let o)?: wire = .byName(o)
        case .array(let a)?: wire = .byPosition(a)
        default: wire = nil
        }
        return invoke(method, wire, isNotification: false)
    }

    /// Tells the observers once that the server closes (later calls do nothing).
    public func close() {
        guard !closed else { return }
        closed = true
        for observer in observers { observer.serverWillClose(self) }
    }

    // MARK: MessageHandler

    public func handle(_ request: Request) -> Result<JSON, RPCError> {
        // Checked first: such a notification is ignored in every state, even after shutdown.
        if request.isNotification, methods.ignoresNotification(request.method) { return .success(.null) }
        if let refusal = lifecycle.refusal(of: request) { return .failure(refusal) }
        let outcome = invoke(request.method, request.params, isNotification: request.isNotification)
        let succeeded: Bool
        if case .success = outcome { succeeded = true } else { succeeded = false }
        lifecycle.record(request, succeeded: succeeded)
        return outcome
    }

    public func endOfCycle() {
        progressing.last?.phase("updating controllers")
        for observer in observers { observer.serverWillEndCycle(self) }
        for progress in progressing { progress.end(failed: false) }
        progressing.removeAll()
        outbox.holdsStream = false
    }

    public func setImmediateOutput(_ sink: @escaping (OutgoingNotification) -> Bool) { outbox.immediate = sink }

    public func setStreamOutput(_ sink: @escaping ([OutgoingNotification]) -> Bool) { outbox.stream = sink }

    /// Not before a request of the batch that reports `$/progress`: the progress is written at
    /// once, ahead of every notification still queued, earlier requests' included.
    public func mayStream(before later: [Request]) -> Bool {
        !later.contains { request in
            guard !request.isNotification, methods.handler(for: request.method)?.reportsProgress == true else {
                return false
            }
            return (try? RequestProgress.token(request.params)) != nil
        }
    }

    public func takeNotifications() -> [OutgoingNotification] { outbox.take() }

    public func checkOutside(wakeQuiet: Bool) { takeReadState(wakeQuiet: wakeQuiet) }

    public func checkOutsideWhileIdle() {
        checkingWhileIdle = true
        takeReadState()
    }

    public var idleIntervalMilliseconds: Int32? { idleWait }

    public var wakeDescriptor: Int32? { changeAnnouncer?.descriptor }

    /// What need not delay the answer: freeing what a batch left, the store's checkpoint.
    public func afterOutput() {
        contexts.graph?.releaseDeferred()
        // A watched store's snapshot ends with the message, and the next check takes a new
        // one; where the watch sees every write before its commit shows, it lasts until input
        // goes idle instead, and the next message's check keeps it while nothing was written.
        if contexts.graph?.store.readSnapshots == .perMessage, checkingWhileIdle || !watchSeesEveryWrite {
            contexts.graph?.store.releaseSnapshot()
        }
        checkingWhileIdle = false
        contexts.graph?.store.checkpointIfDue()
    }

    func requestExit(_ code: Int32) { exitCode = code }

    private func invoke(_ method: String, _ params: Params?, isNotification: Bool) -> Result<JSON, RPCError> {
        guard let handler = methods.handler(for: method) else { return .failure(.methodNotFound(method)) }
        var progress: RequestProgress?
        let outcome: Result<JSON, RPCError>
        do {
            if handler.reportsProgress && !isNotification {
                if let token = try RequestProgress.token(params) {
                    outbox.holdsStream = true
                    progress = RequestProgress(token: token, method: method) { [outbox] in
                        outbox.sendNow(ProgressDeclarations.progress, $0)
                    }
                } else if let observe = onUntokenedProgress {
                    progress = RequestProgress(token: .null, method: method, send: observe)
                }
            }
            outcome = .success(try handler.run(params, isNotification))
        } catch let error as RPCError {
            outcome = .failure(error)
        } catch let error as EngineError {
            outcome = .failure(ErrorTable.rpcError(error))
        } catch {
            logger.error("\(method) failed unexpectedly: \(error)")
            outcome = .failure(.internalError("\(method) failed unexpectedly"))
        }
        if let progress {
            // A success ends once its cycle has reached the controllers (endOfCycle).
            if case .success = outcome { progressing.append(progress) } else { progress.end(failed: true) }
        }
        return outcome
    }
}
