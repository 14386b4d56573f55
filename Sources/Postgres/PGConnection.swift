import CLibPQ

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One libpq connection. Not thread-safe: use it from one thread at a time.
///
/// Parameters are sent in text format (`$1`, `$2`, …; nil is NULL) and results are read as
/// text, so values round-trip through PostgreSQL's own input/output functions.
public final class PGConnection {
    /// The libpq handle; nil only after `close()`.
    public private(set) var handle: OpaquePointer?
    /// The conninfo string or `postgresql://` URI this connection was opened with.
    public let conninfo: String
    /// Prepared statement names by SQL text, valid for the current session.
    private var prepared: [String: String] = [:]
    private var nextStatement = 0

    /// Connects (blocking). Throws a `PGError` with `connectionBroken` set when it fails.
    public init(_ conninfo: String) throws(PGError) {
        self.conninfo = conninfo
        let handle = PQconnectdb(conninfo)
        guard let handle, PQstatus(handle) == CONNECTION_OK else {
            let error = PGError(
                sqlState: nil, message: PGError.connectionMessage(handle), connectionBroken: true)
            PQfinish(handle)
            throw error
        }
        self.handle = handle
        Self.silenceNotices(handle)
    }

    /// Server notices (`NOTICE: … does not exist, skipping`) would go to stderr by default,
    /// which the server's protocol output must not share; they carry nothing we act on.
    private static func silenceNotices(_ handle: OpaquePointer) {
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
    }

    deinit { PQfinish(handle) }

    /// Closes the connection; further calls fail as broken.
    public func close() {
        PQfinish(handle)
        handle = nil
        prepared = [:]
    }

    /// True while the connection is usable (CONNECTION_OK).
    public var isConnected: Bool { handle.map { PQstatus($0) == CONNECTION_OK } ?? false }

    /// The backend process id serving this connection (for `pg_terminate_backend`, logs).
    public var backendPID: Int32 { handle.map { PQbackendPID($0) } ?? 0 }

    /// The socket's file descriptor, for poll/select; -1 when not connected.
    public var socket: Int32 { handle.map { PQsocket($0) } ?? -1 }

    /// Re-establishes the connection with the same parameters (blocking). Prepared statements
    /// and LISTEN registrations belong to the old session and are forgotten.
    public func reset() throws(PGError) {
        prepared = [:]
        if handle == nil {
            handle = PQconnectdb(conninfo)
        } else {
            PQreset(handle)
        }
        guard let handle, isConnected else {
            throw PGError(sqlState: nil, message: PGError.connectionMessage(handle), connectionBroken: true)
        }
        Self.silenceNotices(handle)
    }

    /// Backoff of `reconnectIfBroken()`.
    private var reconnectBackoff = PGBackoff()
    private var nextReconnect: ContinuousClock.Instant?

    /// Before a request on a connection that may have broken: does nothing while connected;
    /// otherwise tries `reset()` when the backoff allows (50 ms after the loss, doubling to 5 s
    /// after each failed attempt), and throws a broken-connection error at once in between,
    /// so requests during an outage fail fast instead of each waiting for a connect.
    /// True when it reconnected (the session's state, LISTENs included, is new).
    @discardableResult
    public func reconnectIfBroken() throws(PGError) -> Bool {
        if isConnected {
            nextReconnect = nil
            reconnectBackoff.reset()
            return false
        }
        let now = ContinuousClock.now
        guard let due = nextReconnect else {
            // The loss was just noticed: wait the first delay before trying.
            nextReconnect = now + .milliseconds(reconnectBackoff.delayMilliseconds)
            throw PGError(sqlState: nil, message: PGError.connectionMessage(handle), connectionBroken: true)
        }
        guard now >= due else {
            throw PGError(
                sqlState: nil, message: "reconnecting to the server (next attempt in \(due - now))",
                connectionBroken: true)
        }
        do {
            try reset()
        } catch {
            reconnectBackoff.failed()
            nextReconnect = now + .milliseconds(reconnectBackoff.delayMilliseconds)
            throw error
        }
        nextReconnect = nil
        reconnectBackoff.reset()
        return true
    }

    // MARK: Statements

    /// Runs one statement with text parameters (PQexecParams). With no parameters, `sql`
    /// may hold several statements separated by semicolons (PQexec); the last result is returned.
    @discardableResult
    public func exec(_ sql: String, _ params: [PGValue?] = []) throws(PGError) -> PGResult {
        let handle = try liveHandle()
        if params.isEmpty {
            return try check(PQexec(handle, sql))
        }
        return try check(
            withParams(params) { count, values in
                PQexecParams(handle, sql, count, nil, values, nil, nil, 0)
            })
    }

    /// Runs `sql` as a named prepared statement, preparing it on first use in this session
    /// (PQprepare + PQexecPrepared). Use for statements run many times.
    @discardableResult
    public func execPrepared(_ sql: String, _ params: [PGValue?] = []) throws(PGError) -> PGResult {
        try check(try runPrepared(sql, params))
    }

    /// `execPrepared` for large results: each row goes to `body` as it lies in libpq's
    /// result (`PGRow`), without a string per value.
    public func execPrepared(_ sql: String, _ params: [PGValue?], eachRow body: (PGRow) -> Void) throws(PGError) {
        let result = try runPrepared(sql, params)
        defer { PQclear(result) }
        guard let result, PQresultStatus(result) == PGRES_TUPLES_OK else {
            throw PGError.from(result: result, connection: handle)
        }
        for r in 0..<PQntuples(result) { body(PGRow(result: result, row: r)) }
    }

    /// Prepares `sql` once per session and runs it; the caller checks and frees the result.
    private func runPrepared(_ sql: String, _ params: [PGValue?]) throws(PGError) -> OpaquePointer? {
        let handle = try liveHandle()
        let name: String
        if let known = prepared[sql] {
            name = known
        } else {
            name = "fetchd_s\(nextStatement)"
            nextStatement += 1
            _ = try check(PQprepare(handle, name, sql, 0, nil))
            prepared[sql] = name
        }
        return withParams(params) { count, values in PQexecPrepared(handle, name, count, values, nil, nil, 0) }
    }

    /// The number of statements prepared in this session.
    public var preparedCount: Int { prepared.count }

    // MARK: Transactions

    /// Runs `body` inside BEGIN … COMMIT; rolls back when it throws (the error is rethrown).
    public func transaction<T>(
        isolation: String? = nil, _ body: () throws -> T
    ) throws -> T {
        try exec(isolation.map { "BEGIN ISOLATION LEVEL \($0)" } ?? "BEGIN")
        do {
            let value = try body()
            try exec("COMMIT")
            return value
        } catch {
            if isConnected { _ = try? exec("ROLLBACK") }
            throw error
        }
    }

    /// The transaction status: idle, in a transaction, in a failed transaction, or unknown.
    public var inTransaction: Bool {
        guard let handle else { return false }
        let status = PQtransactionStatus(handle)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR
    }

    // MARK: LISTEN / NOTIFY

    /// Registers this session for `NOTIFY channel`. The channel is quoted as an identifier.
    public func listen(_ channel: String) throws(PGError) {
        try exec("LISTEN " + quoteIdentifier(channel))
    }

    /// Sends `NOTIFY channel, payload` (delivered at commit when inside a transaction).
    public func notify(_ channel: String, payload: String = "") throws(PGError) {
        try exec("SELECT pg_notify($1, $2)", [.text(channel), .text(payload)])
    }

    /// Reads whatever the server sent without blocking (PQconsumeInput). Throws when the
    /// connection broke.
    public func consumeInput() throws(PGError) {
        let handle = try liveHandle()
        guard PQconsumeInput(handle) == 1 else {
            throw PGError(
                sqlState: nil, message: PGError.connectionMessage(handle),
                connectionBroken: PQstatus(handle) == CONNECTION_BAD)
        }
    }

    /// Waits until the socket is readable (a notification or a closed connection) or
    /// `timeoutMilliseconds` pass (-1: forever). True when readable.
    public func waitForInput(timeoutMilliseconds: Int32) -> Bool {
        var fds = [pollfd(fd: socket, events: Int16(POLLIN), revents: 0)]
        guard fds[0].fd >= 0 else { return false }
        return poll(&fds, 1, timeoutMilliseconds) > 0
    }

    /// Drains the notifications received so far (call `consumeInput()` first to read the socket).
    public func notifications() -> [PGNotification] {
        guard let handle else { return [] }
        var out: [PGNotification] = []
        while let raw = PQnotifies(handle) {
            let n = raw.pointee
            out.append(
                PGNotification(
                    channel: String(cString: n.relname), payload: String(cString: n.extra), senderPID: n.be_pid))
            PQfreemem(raw)
        }
        return out
    }

    // MARK: COPY FROM STDIN

    /// Runs `COPY … FROM STDIN` (text format): `body` writes rows through the given closure
    /// (each call sends raw bytes, usually tab-separated lines ending in "\n"). Returns the
    /// number of rows copied.
    @discardableResult
    public func copyIn(_ sql: String, _ body: (_ send: (String) throws(PGError) -> Void) throws -> Void) throws -> Int {
        try copyInBytes(sql) { sendBytes in
            try withoutActuallyEscaping(sendBytes) { sendBytes in
                try body { (chunk: String) throws(PGError) in try sendBytes(Array(chunk.utf8)) }
            }
        }
    }

    /// `copyIn` with the data as UTF-8 bytes, so callers can build it without strings.
    @discardableResult
    public func copyInBytes(_ sql: String, _ body: (_ send: ([UInt8]) throws(PGError) -> Void) throws -> Void) throws
        -> Int
    {
        let handle = try liveHandle()
        let start = PQexec(handle, sql)
        guard let start, PQresultStatus(start) == PGRES_COPY_IN else {
            defer { PQclear(start) }
            throw PGError.from(result: start, connection: handle)
        }
        PQclear(start)
        let send: ([UInt8]) throws(PGError) -> Void = { (chunk: [UInt8]) throws(PGError) in
            let rc = chunk.withUnsafeBytes { bytes in
                PQputCopyData(handle, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(bytes.count))
            }
            guard rc == 1 else {
                throw PGError(
                    sqlState: nil, message: PGError.connectionMessage(handle),
                    connectionBroken: PQstatus(handle) == CONNECTION_BAD)
            }
        }
        var failure: (any Error)?
        do { try body(send) } catch { failure = error }
        let endRC: Int32
        if let failure {
            endRC = PQputCopyEnd(handle, "\(failure)")
        } else {
            endRC = PQputCopyEnd(handle, nil)
        }
        guard endRC == 1 else {
            throw PGError(
                sqlState: nil, message: PGError.connectionMessage(handle),
                connectionBroken: PQstatus(handle) == CONNECTION_BAD)
        }
        if let failure {
            // The server's answer is the abort we asked for (57014); the body's error says why.
            _ = try? drainResults(handle)
            throw failure
        }
        return try drainResults(handle)?.affectedRows ?? 0
    }

    // MARK: Quoting

    /// `name` as a double-quoted SQL identifier.
    public func quoteIdentifier(_ name: String) -> String {
        "\"" + name.replacingAll("\"", with: "\"\"") + "\""
    }

    /// `text` as a single-quoted SQL literal (standard_conforming_strings is on since 9.1).
    public func quoteLiteral(_ text: String) -> String {
        "'" + text.replacingAll("'", with: "''") + "'"
    }

    // MARK: Internals

    private func liveHandle() throws(PGError) -> OpaquePointer {
        guard let handle else {
            throw PGError(sqlState: nil, message: "connection closed", connectionBroken: true)
        }
        return handle
    }

    /// Converts a result to `PGResult`, or throws its error; always frees it.
    private func check(_ result: OpaquePointer?) throws(PGError) -> PGResult {
        defer { PQclear(result) }
        guard let result else { throw PGError.from(result: nil, connection: handle) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return PGResult(result)
        default:
            throw PGError.from(result: result, connection: handle)
        }
    }

    /// Reads the results after a COPY until PQgetResult returns nil; throws the first error.
    private func drainResults(_ handle: OpaquePointer) throws(PGError) -> PGResult? {
        var last: PGResult?
        var error: PGError?
        while let result = PQgetResult(handle) {
            let status = PQresultStatus(result)
            if status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK {
                last = PGResult(result)
            } else if error == nil {
                error = PGError.from(result: result, connection: handle)
            }
            PQclear(result)
        }
        if let error { throw error }
        return last
    }

    /// Passes the parameters as NUL-terminated C strings (nil pointers for NULL).
    private func withParams(
        _ params: [PGValue?], _ body: (Int32, UnsafePointer<UnsafePointer<CChar>?>) -> OpaquePointer?
    ) -> OpaquePointer? {
        let cStrings: [UnsafeMutablePointer<CChar>?] = params.map { $0.map { strdup($0.text) } }
        defer { for pointer in cStrings { free(pointer) } }
        let pointers: [UnsafePointer<CChar>?] = cStrings.map { $0.map { UnsafePointer($0) } }
        return pointers.withUnsafeBufferPointer { body(Int32(params.count), $0.baseAddress!) }
    }
}

extension String {
    fileprivate func replacingAll(_ target: Character, with replacement: String) -> String {
        var out = ""
        out.reserveCapacity(count)
        for character in self {
            if character == target { out += replacement } else { out.append(character) }
        }
        return out
    }
}
