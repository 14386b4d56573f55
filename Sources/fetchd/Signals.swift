#if canImport(Glibc)
import Glibc
#endif

/// SIGTERM/SIGINT as a readable pipe (the self-pipe trick): the handler only writes one byte,
/// which is async-signal-safe; the read loop polls the pipe and closes the store cleanly.
enum Signals {
    // Written by the signal handler, read after the loop ends.
    nonisolated(unsafe) static var caught: Int32 = 0
    nonisolated(unsafe) static var wakeWriter: Int32 = -1

    static func installTerminationPipe() -> Int32 {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return -1 }
        wakeWriter = fds[1]
        let handler: @convention(c) (Int32) -> Void = { signal in
            Signals.caught = signal
            var byte: UInt8 = 1
            _ = write(Signals.wakeWriter, &byte, 1)
        }
        signal(SIGTERM, handler)
        signal(SIGINT, handler)
        return fds[0]
    }
}
