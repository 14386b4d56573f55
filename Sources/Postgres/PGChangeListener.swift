/// The announcement of commits to a shared PostgreSQL dataset: each committing transaction
/// runs `NOTIFY <channel>, '<token>'` (delivered at its commit), and every process watching the
/// dataset LISTENs on a dedicated connection.
///
/// A notification is only a wake-up: payloads are small and a notification sent while a
/// listener was disconnected is never delivered, so the watcher always reads the history from
/// its own token. For the same reason a reconnect counts as a wake-up (something may have been
/// committed meanwhile).
public final class PGChangeListener {
    /// The channel (`fetchd_<schema>`).
    public let channel: String
    /// The newest token announced so far (for logs; nil before the first notification).
    public private(set) var lastAnnouncedToken: Int64?
    /// Whether the connection is up (false while reconnecting).
    public var isConnected: Bool { connection?.isConnected ?? false }
    /// The backend serving the LISTEN connection (0 while disconnected).
    public var backendPID: Int32 { isConnected ? connection?.backendPID ?? 0 : 0 }
    /// Reconnects made since the listener was created.
    public private(set) var reconnects = 0
    /// The backends of this process's own writing connections: their notifications announce
    /// its own commits, which wake nobody here (PostgreSQL delivers them to every listener,
    /// the sender's process included).
    public var ownSenders: () -> [Int32] = { [] }

    private let conninfo: String
    private var connection: PGConnection?
    private var backoff: PGBackoff
    /// When the next reconnect attempt is due (set while disconnected).
    private var nextAttempt: ContinuousClock.Instant?
    private let log: (String) -> Void

    /// The channel of the dataset in `schema`: `fetchd_` + schema (at most 63 bytes, the
    /// longest identifier PostgreSQL keeps).
    public static func channel(schema: String) -> String { "fetchd_" + schema }

    /// Connects and LISTENs. Fails when the first connection fails (the caller reports it as
    /// the open's error); later losses are reconnected with `backoff`, each told to `log`.
    public init(
        conninfo: String, channel: String, backoff: PGBackoff = PGBackoff(),
        log: @escaping (String) -> Void = { _ in }
    ) throws(PGError) {
        precondition(channel.utf8.count <= 63, "channel names are identifiers of at most 63 bytes")
        self.conninfo = conninfo
        self.channel = channel
        self.backoff = backoff
        self.log = log
        let connection = try PGConnection(conninfo)
        try connection.listen(channel)
        self.connection = connection
    }

    /// Readable when a notification arrived or the connection closed: poll(2) it, then call
    /// `drain()`. -1 while reconnecting (poll ignores it; wait `retryMilliseconds` instead).
    public var descriptor: Int32 { isConnected ? connection?.socket ?? -1 : -1 }

    /// While disconnected: milliseconds until `drain()` should try again; nil while connected.
    public var retryMilliseconds: Int32? {
        guard !isConnected, let nextAttempt else { return nil }
        let left = nextAttempt - ContinuousClock.now
        // Rounded up, so a wake-up at that time finds the attempt due.
        let ms =
            left.components.seconds * 1000 + (left.components.attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: max(0, ms))
    }

    /// A NOTIFY is delivered after its transaction committed, so the commit is visible by then.
    public var wakesBeforeCommit: Bool { false }

    /// Announces a commit: run inside the committing transaction (delivered at its COMMIT,
    /// dropped on rollback), with the transaction's token as the whole payload.
    public static func announce(on connection: PGConnection, channel: String, token: Int64) throws(PGError) {
        try connection.notify(channel, payload: String(token))
    }

    /// Reads what the server sent, without blocking; reconnects when an attempt is due.
    /// True when other processes may have committed: a notification on the channel from
    /// another sender arrived, or the connection was just re-established.
    public func drain() -> Bool {
        guard let connection, connection.isConnected else { return reconnectIfDue() }
        do {
            // Until nothing more is waiting: a terminated backend's error message and the
            // end of its stream may come in separate reads.
            repeat {
                try connection.consumeInput()
            } while connection.isConnected
                && connection.waitForInput(timeoutMilliseconds: 0)
        } catch {
            lost(error)
            return false
        }
        var announced = false
        let own = ownSenders()
        for notification in connection.notifications() where notification.channel == channel {
            if own.contains(notification.senderPID) { continue }
            announced = true
            if let token = Int64(notification.payload) {
                lastAnnouncedToken = max(lastAnnouncedToken ?? token, token)
            }
        }
        if !connection.isConnected {
            lost(PGError(sqlState: nil, message: "connection closed", connectionBroken: true))
        }
        return announced
    }

    private func lost(_ error: PGError) {
        backoff.reset()
        nextAttempt = ContinuousClock.now + .milliseconds(backoff.delayMilliseconds)
        log("lost the PostgreSQL notification connection (\(error)); reconnecting in \(backoff.delayMilliseconds) ms")
    }

    private func reconnectIfDue() -> Bool {
        if let nextAttempt, ContinuousClock.now < nextAttempt { return false }
        do {
            if let connection {
                try connection.reset()
            } else {
                connection = try PGConnection(conninfo)
            }
            try connection!.listen(channel)
        } catch {
            backoff.failed()
            nextAttempt = ContinuousClock.now + .milliseconds(backoff.delayMilliseconds)
            log("reconnecting to PostgreSQL failed (\(error)); next attempt in \(backoff.delayMilliseconds) ms")
            return false
        }
        reconnects += 1
        nextAttempt = nil
        let attempts = backoff.failures + 1
        backoff.reset()
        log(
            "reconnected to PostgreSQL after \(attempts) attempt(s); reading the history from the last merged token")
        return true
    }
}
