import JSON
import JSONRPC
import Server

#if canImport(Glibc)
    import Glibc
#endif

/// `fetchd watch`'s loop: it runs, like `tail -f`, until SIGINT or SIGTERM. With `--stdin`,
/// requests on stdin run through the server's session as a client's would (each top-level
/// message one change cycle, protocol.md §10.2), and the end of that input only stops the
/// reading. What the server writes is handed to `deliver` instead of stdout.
///
/// Other processes' commits come in as they do for the server's own transport
/// (`StdioTransport`, protocol.md §5 "Watching"): while the server asks to hear of idle input
/// (`idleIntervalMilliseconds`), poll(2) waits on stdin and the server's `wakeDescriptor`
/// (inotify under `--watch auto`), and a wait that ends without input lets the session check
/// the outside (`Session.idle`), whose merged cycles are delivered like a request's.
struct WatchLoop {
    enum End: Equatable {
        case endOfInput
        case exit(Int32)
        case interrupted
    }

    let server: Server
    let session: Session
    /// Whether stdin carries requests (`--stdin`); otherwise it is never read.
    let readsInput: Bool

    /// `deliver` gets every message the server wrote for one input or one idle check (parsed),
    /// in order; it returns false when stdout is gone, which ends the loop like end of input.
    func run(deliver: ([JSON]) -> Bool) -> End {
        var scratch = [UInt8](repeating: 0, count: 1 << 16)
        var written: [JSON] = []
        let emit: (Frame) -> Void = { frame in
            if let message = try? JSON.parse(Array(frame.contents)) { written.append(message) }
        }
        func flush() -> Bool {
            defer { written.removeAll() }
            return written.isEmpty || deliver(written)
        }
        if !readsInput { stopReadingInput() }
        while true {
            if Signals.caught != 0 { return .interrupted }
            switch waitForInput() {
            case .interrupted:
                return .interrupted
            case .idle:
                session.idle(emit: emit)
                if !flush() { return .endOfInput }
                continue
            case .ready:
                break
            }
            let n = scratch.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if Signals.caught != 0 { return .interrupted }
            if n < 0, errno == EINTR { continue }
            if n <= 0 {
                session.finish(emit: emit)
                if !flush() { return .endOfInput }
                if let code = server.exitCode { return .exit(code) }
                stopReadingInput()
                continue
            }
            scratch.withUnsafeBytes { session.receive(UnsafeRawBufferPointer(rebasing: $0[0..<n]), emit: emit) }
            if !flush() { return .endOfInput }
            if let code = server.exitCode { return .exit(code) }
        }
    }

    /// Points stdin at a pipe that never has data (its write end stays open for the process's
    /// life), so the loop waits on the watcher alone. The signal handler's dup2 of /dev/null over
    /// stdin still makes it readable, which is how a signal ends the wait (see `Signals`).
    private func stopReadingInput() {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return }
        dup2(ends[0], STDIN_FILENO)
        close(ends[0])
    }

    private enum Wait {
        /// A read will not block (data, end of input or an error).
        case ready
        /// The interval passed or the wake descriptor became readable, with nothing to read.
        case idle
        case interrupted
    }

    /// poll(2) on stdin and the server's wake descriptor, for as long as the server allows
    /// (for ever when it does not watch: then only stdin wakes us).
    private func waitForInput() -> Wait {
        while true {
            let wait = server.idleIntervalMilliseconds
            var fds = [
                pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wait == nil ? -1 : server.wakeDescriptor ?? -1, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&fds, 2, wait ?? -1)
            if Signals.caught != 0 { return .interrupted }
            if ready < 0 {
                if errno == EINTR { continue }
                return .ready // the read reports the failure as end of input
            }
            if fds[0].revents != 0 { return .ready }
            return .idle
        }
    }
}
