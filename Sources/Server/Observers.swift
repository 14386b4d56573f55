import Contexts
import JSONRPC
import Model

/// What the server tells the parts registered with `Server.addObserver`, in registration order.
public protocol ServerObserver: AnyObject {
    /// After each top-level message (one request or notification, or a whole batch), before
    /// its responses are written: dirty contexts end their change cycle here.
    func serverWillEndCycle(_ server: Server)
    /// Once, when the process ends: `exit`, end of input, SIGTERM/SIGINT.
    func serverWillClose(_ server: Server)
}

extension ServerObserver {
    public func serverWillEndCycle(_ server: Server) {}
    public func serverWillClose(_ server: Server) {}
}

/// What `ContextsState` tells the parts registered with its `addObserver` (the controllers,
/// the external-merge announcer), in registration order. Each then joins the new graph's own
/// observer list (`ObjectGraph.addObserver`) for what happens in it.
public protocol StoreOpenObserver: AnyObject {
    /// `store/open` replaced the graph: every context of the old one is gone.
    func storeDidOpen(_ graph: ObjectGraph)
}

/// Server-to-client notifications waiting to be written: they go out before the response
/// of the message being handled, in the order they were queued.
public final class Outbox {
    private var queued: [OutgoingNotification] = []

    public init() {}

    /// Queues a declared notification with its typed params (the only way one is sent).
    public func send<P>(_ notification: ServerNotification<P>, _ params: P) {
        queued.append(notification.message(params))
    }

    /// `send` for params that write their own bytes (`ServerNotification.message`'s overload).
    public func send<P: EncodedParams>(_ notification: ServerNotification<P>, _ params: P) {
        queued.append(notification.message(params))
    }

    /// Writes a notification at once when the transport can (`MessageHandler.setImmediateOutput`),
    /// else queues it like `send`.
    public func sendNow<P>(_ notification: ServerNotification<P>, _ params: P) {
        let message = notification.message(params)
        if let immediate, immediate(message) { return }
        queued.append(message)
    }

    var immediate: ((OutgoingNotification) -> Bool)?

    /// Where a big cycle's queued notifications go before the message's handling ends
    /// (`MessageHandler.setStreamOutput`): into the transport's buffer, ahead of everything
    /// queued later. Nil: everything waits for `take`.
    var stream: (([OutgoingNotification]) -> Bool)?
    /// While set, nothing is streamed, until the message's cycle ends (`Server.endOfCycle`):
    /// the message reports `$/progress`, whose `end` precedes the notifications of its cycle
    /// (protocol.md §2, "Progress"), or the stream refused once (no transport, or a later
    /// request of the batch reports progress).
    var holdsStream = false
    /// How many queued notifications start a stream (a few hundred KiB): a small cycle never
    /// pays for streaming, and a big one starts going out early.
    static let streamThreshold = 4096
    /// Whether the message under way has streamed: from then on each step's notifications
    /// follow at once, so the client always has something to read while the next is made.
    private var streaming = false

    /// Hands what is queued to the stream once it holds `streamThreshold` messages (a big
    /// cycle while later controllers still work), and then whatever each later step queued:
    /// what is written stays a prefix of what `take` would have returned, so the bytes and
    /// their order are the same.
    func streamIfMany() {
        guard queued.count >= (streaming ? 1 : Self.streamThreshold), !holdsStream, let stream else { return }
        if stream(queued) {
            queued.removeAll(keepingCapacity: true)
            streaming = true
        } else {
            holdsStream = true
        }
    }

    func take() -> [OutgoingNotification] {
        streaming = false
        guard !queued.isEmpty else { return [] }
        defer { queued = [] }
        return queued
    }
}
