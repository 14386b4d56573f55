import JSON
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// One client conversation, independent of file descriptors: bytes in, frames out. Turns each
/// top-level message into one change cycle: every notification the cycle queued is written
/// first, then the response (or the batch's array of responses).
public final class Session {
    public let handler: MessageHandler
    private var decoder: FrameDecoder
    private var logger: Logger

    public init(
        handler: MessageHandler, mode: FramingMode = .auto, limits: FramingLimits = FramingLimits(),
        logger: Logger = Logger(label: "fetchd.jsonrpc")
    ) {
        self.handler = handler
        self.decoder = FrameDecoder(mode: mode, limits: limits)
        self.logger = logger
        handler.setImmediateOutput { [unowned self] notification in
            guard let direct = directOutput else { return false }
            let encoder = FrameEncoder(framing: decoder.framing ?? .ndjson)
            let frame = encoder.frame { $0.write(Outgoing.notification(notification)) }
            onWrite?(frame, encoder.framing)
            direct(frame)
            return true
        }
        handler.setStreamOutput { [unowned self] notifications in
            // `self.handler`: the init parameter of that name would be captured strongly, and the
            // server keeps this sink (a cycle that kept every server alive).
            guard let stream = streamOutput, self.handler.mayStream(before: laterRequests()) else { return false }
            let encoder = FrameEncoder(framing: decoder.framing ?? .ndjson)
            for notification in notifications {
                let frame = encoder.frame { $0.write(Outgoing.notification(notification)) }
                onWrite?(frame, encoder.framing)
                streamed += frame.contents.count
                stream(frame)
            }
            return true
        }
    }

    /// Where a transport takes frames that go out at once, in the middle of a message's
    /// handling (`$/progress`), written and flushed before anything the message still causes.
    /// Without one, such notifications are written with the message's other output.
    public var directOutput: ((Frame) -> Void)?

    /// Where a transport takes the notifications of a big change cycle while the message is
    /// still being handled (`MessageHandler.setStreamOutput`): into the buffer it gathers
    /// frames in, without a flush each, ahead of the message's later output. The bytes are
    /// those the message's output would have started with. Without one, they wait.
    public var streamOutput: ((Frame) -> Void)?
    /// The bytes streamed during the message being handled (for its debug line).
    private var streamed = 0
    /// The batch being handled, and the element being dispatched: what streaming asks about
    /// (`MessageHandler.mayStream`), read only then.
    private var batch: [JSON] = []
    private var batchIndex = 0
    /// The message being answered, kept whole until its answer is written: freeing its tree
    /// (every object, key and string of it) then happens while the client reads, not before.
    private var answering: JSON = .null
    /// Set by a transport before `receive`: its wait found the handler's wake descriptor
    /// with nothing to read. Told to the check before the first message received, not to
    /// later ones (time passed while the first was handled).
    public var wakeQuiet = false

    /// The requests of the batch under way that are still to be dispatched.
    private func laterRequests() -> [Request] {
        guard batchIndex + 1 < batch.count else { return [] }
        return batch[(batchIndex + 1)...].compactMap {
            guard case .request(let request) = IncomingMessage($0) else { return nil }
            return request
        }
    }

    /// Sees every event the decoder produces (a message's bytes, or a framing error) before it
    /// is handled, and every frame written: how `--record` captures a session.
    public var onReceive: ((FrameDecoder.Event) -> Void)?
    public var onWrite: ((Frame, Framing) -> Void)?
    /// Called after the frames one input (or one idle check) caused were emitted: a
    /// transport that buffers frames writes them out then (StdioTransport).
    public var onFlush: (() -> Void)?

    /// What `--log-level debug` says of each request of the message being handled (method,
    /// id, time in the handler, error kind), logged once its output is written.
    private struct Handled {
        let method: String
        let id: RequestID?
        let nanoseconds: UInt64
        let errorKind: String?
    }
    private var handled: [Handled] = []

    /// The bytes of the header behind the current malformed-header event (see FrameDecoder).
    public var rejectedHeader: [UInt8] { decoder.rejectedHeader }

    public var limits: FramingLimits { decoder.limits }

    /// The framing in use: fixed, or detected from the first byte received.
    public var framing: Framing? { decoder.framing }

    /// True once the handler asked to end the session; later input is ignored.
    public var isFinished: Bool { handler.exitCode != nil }

    /// Consumes bytes and hands each outgoing frame to `emit`, in order.
    public func receive(_ bytes: UnsafeRawBufferPointer, emit: (Frame) -> Void) {
        guard !isFinished else { return }
        decoder.feed(bytes)
        while !isFinished, let event = decoder.next() { handle(event, emit: emit) }
    }

    public func receive(_ bytes: [UInt8], emit: (Frame) -> Void) {
        bytes.withUnsafeBytes { receive($0, emit: emit) }
    }

    /// End of input: a final NDJSON line without its newline is still handled.
    public func finish(emit: (Frame) -> Void) {
        guard !isFinished else { return }
        if let event = decoder.finish() { handle(event, emit: emit) }
        if decoder.pendingByteCount > 0 {
            logger.notice("input ended inside a message; \(decoder.pendingByteCount) bytes dropped")
        }
    }

    /// Input stayed idle: lets the handler check the outside and writes what that queued.
    public func idle(emit: (Frame) -> Void) {
        guard !isFinished else { return }
        handler.checkOutsideWhileIdle()
        write(handler.takeNotifications().map(Outgoing.notification), emit: emit)
    }

    private func handle(_ event: FrameDecoder.Event, emit: (Frame) -> Void) {
        // What happened outside since the last message is written first, as its own output;
        // the state that check read stays for the message (no `afterOutput` in between).
        if case .message = event, !isFinished {
            let quiet = wakeQuiet
            wakeQuiet = false
            handler.checkOutside(wakeQuiet: quiet)
            write(handler.takeNotifications().map(Outgoing.notification), emit: emit, finishing: false)
        }
        onReceive?(event)
        let outgoing: [Outgoing]
        switch event {
        case .message(let bytes):
            streamed = 0
            outgoing = bytes.withUnsafeBytes { process(message: $0) }
            let written = write(outgoing, emit: emit)
            if !handled.isEmpty { logHandled(bytesIn: bytes.count, bytesOut: streamed + written) }
        case .error(let error):
            logger.debug("framing error: \(error)")
            outgoing = [.response(Response(id: .null, outcome: .failure(RPCError(error))))]
            write(outgoing, emit: emit)
        }
    }

    /// Writes the frames; the number of bytes written.
    @discardableResult
    private func write(_ outgoing: [Outgoing], emit: (Frame) -> Void, finishing: Bool = true) -> Int {
        let encoder = FrameEncoder(framing: decoder.framing ?? .ndjson)
        var bytes = 0
        var writer = JSONWriter(capacity: 256)
        for message in outgoing {
            let frame = encoder.frame(in: &writer) { $0.write(message) }
            onWrite?(frame, encoder.framing)
            bytes += frame.contents.count
            emit(frame)
        }
        if !outgoing.isEmpty { onFlush?() }
        if finishing {
            answering = .null
            handler.afterOutput()
        }
        return bytes
    }

    /// One debug line per request of the message just answered; the bytes in and out are the
    /// whole message's (a batch's lines say which element they are).
    private func logHandled(bytesIn: Int, bytesOut: Int) {
        defer { handled.removeAll(keepingCapacity: true) }
        for (index, request) in handled.enumerated() {
            let place = handled.count > 1 ? " (batch \(index + 1)/\(handled.count))" : ""
            let id = request.id.map { "\($0.json)" } ?? "none"
            let millis = Double(request.nanoseconds / 1000) / 1000
            let outcome = request.errorKind.map { " error \($0)" } ?? ""
            logger.debug(
                "\(request.method) id \(id)\(place): \(millis) ms, \(bytesIn) B in, \(bytesOut) B out\(outcome)")
        }
    }

    private static func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    /// One top-level message: parse, dispatch, close the cycle. Public for in-process tests.
    public func process(message bytes: UnsafeRawBufferPointer) -> [Outgoing] {
        let json: JSON
        do {
            json = try JSON.parse(bytes)
        } catch {
            logger.debug("parse error: \(error)")
            return [
                .response(
                    Response(
                        id: .null,
                        outcome: .failure(
                            .parseError(
                                error.reason,
                                [
                                    ("line", .integer(Int64(error.line))), ("column", .integer(Int64(error.column))),
                                    ("position", .integer(Int64(error.position))),
                                ]))))
            ]
        }
        answering = json
        switch json {
        case .array(let elements):
            guard !elements.isEmpty else {
                return [.response(Response(id: .null, outcome: .failure(.invalidRequest("empty batch"))))]
            }
            var responses: [Response] = []
            var dispatched = false
            batch = elements
            defer { batch = [] }
            for (index, element) in elements.enumerated() {
                batchIndex = index
                if let response = dispatch(IncomingMessage(element), dispatched: &dispatched) {
                    responses.append(response)
                }
            }
            return closeCycle(dispatched: dispatched, responses.isEmpty ? [] : [.batch(responses)])
        default:
            var dispatched = false
            let response = dispatch(IncomingMessage(json), dispatched: &dispatched)
            return closeCycle(dispatched: dispatched, response.map { [.response($0)] } ?? [])
        }
    }

    private func dispatch(_ message: IncomingMessage, dispatched: inout Bool) -> Response? {
        switch message {
        case .invalid(let error, let id):
            return Response(id: id, outcome: .failure(error))
        case .response(let id):
            logger.notice(
                "dropped a response from the client (id \(id.map { "\($0.json)" } ?? "none")): fetchd sends no requests"
            )
            return nil
        case .request(let request):
            // After `exit`, the rest of a batch is not run.
            guard !isFinished else { return nil }
            dispatched = true
            // Timed only when the line will be logged (requests, not notifications): the hot
            // path pays one comparison.
            let timed = request.id != nil && logger.logLevel <= .debug
            let start = timed ? Self.monotonicNanoseconds() : 0
            let outcome = handler.handle(request)
            if timed {
                var kind: String?
                if case .failure(let error) = outcome { kind = error.data?["kind"]?.stringValue ?? "\(error.code)" }
                handled.append(
                    Handled(
                        method: request.method, id: request.id, nanoseconds: Self.monotonicNanoseconds() - start,
                        errorKind: kind))
            }
            guard let id = request.id else {
                if case .failure(let error) = outcome {
                    logger.debug("notification \(request.method) failed: \(error)")
                }
                return nil
            }
            if case .success = outcome, handler.answersLater(id) { return nil }
            return Response(id: id, outcome: outcome)
        }
    }

    private func closeCycle(dispatched: Bool, _ responses: [Outgoing]) -> [Outgoing] {
        if dispatched { handler.endOfCycle() }
        let notifications = handler.takeNotifications()
        if notifications.isEmpty { return responses }
        return notifications.map(Outgoing.notification) + responses
    }
}
