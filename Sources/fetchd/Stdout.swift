#if canImport(Glibc)
    import Glibc
#endif

/// Buffered output to stdout for the subcommands. A reader that went away (`fetchd query |
/// head -1`) is not an error: `closed` turns true and later writes are dropped (SIGPIPE is
/// ignored), as the server does when its client stops reading.
final class Stdout {
    private var buffer: [UInt8] = []
    private(set) var closed = false

    init() { signal(SIGPIPE, SIG_IGN) }

    func line(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        buffer.append(0x0A)
        if buffer.count >= 1 << 16 { flush() }
    }

    func text(_ text: String) { buffer.append(contentsOf: text.utf8) }

    func flush() {
        defer { buffer.removeAll(keepingCapacity: true) }
        guard !closed else { return }
        buffer.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = write(STDOUT_FILENO, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    closed = true
                    return
                }
                offset += n
            }
        }
    }
}
