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
}
