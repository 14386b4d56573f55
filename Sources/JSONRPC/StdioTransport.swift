import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a Session over file descriptors: large blocking reads; what one message causes (a
/// big cycle's notifications and the response) goes out in one write(2), or one per MiB.
/// Single-threaded on purpose: same input bytes, same output bytes.
public struct StdioTransport {
    public enum EndReason: Equatable, Sendable {
        /// Input reached end of file (or failed): finish and exit 0.
        case endOfInput
        /// The handler asked to exit (the `exit` notification) with this code.
        case exit(Int32)
        /// A signal asked us to stop (see `interrupted`).
        case interrupted
        /// The client stopped reading our output (EPIPE).
        case outputClosed
    }

    public var input: Int32
    public var output: Int32
    /// Asked whenever a read or a wait returns early (EINTR) or at end of input: true when a
    /// signal handler has asked the loop to stop. One read(2) per wake-up; poll(2) first only
    /// while the handler wants to hear of idle input (`idleIntervalMilliseconds`).
    public var interrupted: () -> Bool
    public var readSize: Int
    private var logger: Logger

    public init(
        input: Int32, output: Int32, interrupted: @escaping () -> Bool = { false }, readSize: Int = 1 << 20,
        logger: Logger = Logger(label: "fetchd.transport")
    ) {
        self.input = input
        self.output = output
        self.interrupted = interrupted
        self.readSize = readSize
        self.logger = logger
    }

    public func run(_ session: Session) -> EndReason {
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: readSize, alignment: 16)
        defer { scratch.deallocate() }
        var outputClosed = false
        // Frames gather here until the session has emitted all that one message caused: a
        // syscall per frame would cost more than encoding a small notification.
        var pending: [UInt8] = []
        pending.reserveCapacity(1 << 16)
        let flush = {
            guard !pending.isEmpty else { return }
            if !outputClosed, !self.writeAll(Frame(bytes: pending, offset: 0)) { outputClosed = true }
            pending.removeAll(keepingCapacity: true)
        }
        let emit: (Frame) -> Void = { frame in
            pending.append(contentsOf: frame.contents)
            if pending.count >= 1 << 20 { flush() }
        }
        session.onFlush = flush
        // Progress goes out as it happens, after what is already gathered.
        session.directOutput = { frame in
            emit(frame)
            flush()
        }
        // A big cycle goes out as it is made, while later controllers work, in writes small
        // enough (64 KiB, a pipe's default capacity) that making the next takes less time than
        // the client needs to read the last: a MiB write would leave it waiting.
        session.streamOutput = { frame in
            pending.append(contentsOf: frame.contents)
            if pending.count >= 1 << 16 { flush() }
        }
        defer {
            flush()
            session.onFlush = nil
            session.directOutput = nil
            session.streamOutput = nil
        }
        while true {
            var wakeQuiet = false
            if let wait = session.handler.idleIntervalMilliseconds {
                let polled = inputReady(within: wait, wake: session.handler.wakeDescriptor)
                if !polled.ready {
                    if interrupted() { return .interrupted }
                    session.idle(emit: emit)
                    if outputClosed { return .outputClosed }
                    continue
                }
                wakeQuiet = polled.wakeQuiet
            }
            let n = read(input, scratch.baseAddress, readSize)
            if interrupted() { return .interrupted }
            if n < 0 {
                if errno == EINTR { continue }
                logger.error("read failed: errno \(errno)")
                session.finish(emit: emit)
                return outputClosed ? .outputClosed : .endOfInput
            }
            if n == 0 {
                session.finish(emit: emit)
                if let code = session.handler.exitCode { return .exit(code) }
                return outputClosed ? .outputClosed : .endOfInput
            }
            session.wakeQuiet = wakeQuiet
            session.receive(UnsafeRawBufferPointer(rebasing: scratch[0..<n]), emit: emit)
            if let code = session.handler.exitCode { return .exit(code) }
            if outputClosed { return .outputClosed }
        }
    }

    /// poll(2) on the input (and `wake`): `ready` false when `milliseconds` passed, `wake`
    /// became readable or a signal came, with nothing to read; true when a read will not
    /// block (data, end of input or an error). `wakeQuiet`: `wake` was polled and had nothing.
    private func inputReady(within milliseconds: Int32, wake: Int32?) -> (ready: Bool, wakeQuiet: Bool) {
        // On the stack: an array here was a malloc per message.
        withUnsafeTemporaryAllocation(of: pollfd.self, capacity: 2) { fds in
            fds[0] = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
            fds[1] = pollfd(fd: wake ?? -1, events: Int16(POLLIN), revents: 0)
            guard poll(fds.baseAddress, 2, milliseconds) > 0 else { return (false, false) }
            return (fds[0].revents != 0, (wake ?? -1) >= 0 && fds[1].revents == 0)
        }
    }

    /// One write(2) per frame; loops only if the kernel takes part of it (a signal, a full pipe).
    private func writeAll(_ frame: Frame) -> Bool {
        frame.bytes.withUnsafeBytes { raw in
            var offset = frame.offset
            while offset < raw.count {
                let n = write(output, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    logger.notice("output closed (errno \(errno)); the client is gone")
                    return false
                }
                offset += n
            }
            return true
        }
    }
}
