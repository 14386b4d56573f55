import JSON

/// What a Session dispatches to: the server's method table and its change-cycle machinery.
public protocol MessageHandler: AnyObject {
    /// Handles one request or notification. For a notification the outcome is only logged.
    func handle(_ request: Request) -> Result<JSON, RPCError>
    /// Called after each top-level message (a single request or notification, or a whole batch)
    /// that dispatched anything, before its responses are written: the end of one change cycle.
    func endOfCycle()
    /// Server-to-client notifications queued since the last call, in the order they were queued.
    func takeNotifications() -> [OutgoingNotification]
    /// Set once the session must end (the `exit` notification): the process exit code.
    var exitCode: Int32? { get }
    /// Before each top-level message: news from outside the conversation (another process's
    /// commit). The notifications it queues are written at once, on their own, never inside a
    /// response or a batch's answer. `wakeQuiet`: the transport's wait that brought the
    /// message found `wakeDescriptor` with nothing to read, so reading it now would find
    /// nothing new that the next wait would not report.
    func checkOutside(wakeQuiet: Bool)
    /// The same check when input stayed idle for `idleIntervalMilliseconds` (or
    /// `wakeDescriptor` became readable), not before a message: what the check holds ends
    /// with its output.
    func checkOutsideWhileIdle()
    /// How long the transport waits for input before calling `checkOutsideWhileIdle`; nil: for ever.
    var idleIntervalMilliseconds: Int32? { get }
    /// A descriptor the transport waits on beside its input (while `idleIntervalMilliseconds`
    /// is set): when it becomes readable, `checkOutsideWhileIdle` is called (and reads it).
    var wakeDescriptor: Int32? { get }
    /// Once what a message (or an idle check) caused has been written and flushed: work that
    /// need not delay the answer, such as the store's checkpoint.
    func afterOutput()
    /// Where a notification goes that must not wait for the message's answer (`$/progress`):
    /// the sink writes it at once and says whether it could (no transport to write to: false,
    /// and the handler queues it as usual). Set by the Session once.
    func setImmediateOutput(_ sink: @escaping (OutgoingNotification) -> Bool)
    /// Where queued notifications may go before the message's handling ends (a big change
    /// cycle, while later controllers still work): the sink writes them, in order, into the
    /// transport's buffer without flushing each, and says whether it could (no transport:
    /// false, and they stay queued). What it took must be what `takeNotifications` would
    /// have returned first. Set by the Session once.
    func setStreamOutput(_ sink: @escaping ([OutgoingNotification]) -> Bool)
    /// Asked before notifications are streamed: whether they may go out now, given the
    /// requests the message still holds (a batch's later elements). False when one of those
    /// will write something at once that must precede every notification queued before it.
    func mayStream(before later: [Request]) -> Bool
    /// Whether the request just handled opened a stream that stays open until the client
    /// cancels it (MCP's `subscriptions/listen`): no response is written for it now.
    func answersLater(_ id: RequestID) -> Bool
}

extension MessageHandler {
    public func checkOutside(wakeQuiet: Bool) {}
    public func checkOutsideWhileIdle() {}
    public var idleIntervalMilliseconds: Int32? { nil }
    public var wakeDescriptor: Int32? { nil }
    public func afterOutput() {}
    public func setImmediateOutput(_ sink: @escaping (OutgoingNotification) -> Bool) {}
    public func setStreamOutput(_ sink: @escaping ([OutgoingNotification]) -> Bool) {}
    public func mayStream(before later: [Request]) -> Bool { true }
    public func answersLater(_ id: RequestID) -> Bool { false }
}
