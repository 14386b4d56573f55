import JSON
import JSONRPC
import Server

#if canImport(Glibc)
    import Glibc
#endif

/// `fetchd watch`'s read loop: requests on stdin run through the server's session as a
/// client's would (each top-level message one change cycle, protocol.md §10.2), and what each
/// writes is handed to `deliver` instead of stdout. Signals stop it as they stop the server.
///
/// Changes that do not arrive on stdin come in through `tick`, the one place for them: while
/// stdin is idle it runs every `intervalMilliseconds`, then closes a cycle and delivers its
/// notifications like those of a request. Merging other processes' commits into the graph
/// belongs there once the engine detects them; until then `watch` passes no tick and poll(2)
/// waits on stdin alone.
struct WatchLoop {
    enum End: Equatable {
        case endOfInput
        case exit(Int32)
        case interrupted
    }

    struct Tick {
        var intervalMilliseconds: Int32
        var run: (Server) -> Void
    }

    let server: Server
    let session: Session
    var tick: Tick?

    /// `deliver` gets every message the server wrote for one input (parsed), in order; it
    /// returns false when stdout is gone, which ends the loop like end of input.
    func run(deliver: ([JSON]) -> Bool) -> End {
        var scratch = [UInt8](repeating: 0, count: 1 << 16)
        var written: [JSON] = []
        let emit: (Frame) -> Void = { frame in
            if let message = try? JSON.parse(Array(frame.contents)) { written.append(message) }
        }
        func flush() -> Bool {
            defer { written.removeAll() }
            return deliver(written)
        }
        var waiting = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        while true {
            if Signals.caught != 0 { return .interrupted }
            let ready = poll(&waiting, 1, tick?.intervalMilliseconds ?? -1)
            if Signals.caught != 0 { return .interrupted }
            if ready < 0 {
                if errno == EINTR { continue }
                return .endOfInput
            }
            if ready == 0, let tick {
                tick.run(server)
                server.endOfCycle()
                written = server.takeNotifications().map(Self.message)
                if !flush() { return .endOfInput }
                continue
            }
            let n = scratch.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if Signals.caught != 0 { return .interrupted }
            if n < 0, errno == EINTR { continue }
            if n <= 0 {
                session.finish(emit: emit)
                _ = flush()
                return server.exitCode.map(End.exit) ?? .endOfInput
            }
            scratch.withUnsafeBytes { session.receive(UnsafeRawBufferPointer(rebasing: $0[0..<n]), emit: emit) }
            if !flush() { return .endOfInput }
            if let code = server.exitCode { return .exit(code) }
        }
    }

    /// A notification as the session would have written it.
    static func message(_ notification: OutgoingNotification) -> JSON {
        var o: JSONObject = ["jsonrpc": "2.0", "method": .string(notification.method)]
        if let params = notification.params { o["params"] = params }
        return .object(o)
    }
}
