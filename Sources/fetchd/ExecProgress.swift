import JSON
import Server

#if canImport(Glibc)
    import Glibc
#endif

/// `fetchd exec --progress`: one status line on stderr while the file runs — how much of the
/// input has been read (of its size, for a file), how many messages, and the step of the long
/// request under way (the server's progress of it). On a terminal the line is redrawn in
/// place; elsewhere it is written as lines, at most one each `interval`.
final class ExecProgress {
    private let size: Int?
    private let terminal = isatty(STDERR_FILENO) != 0
    private var read = 0
    private var messages = 0
    private var step: (title: String, message: String?, percentage: Int?)?
    private var last: UInt64 = 0
    private let interval: UInt64 = 100_000_000
    private var drawn = false

    /// `input`: the file's descriptor (its size, when it is a regular file, is the 100%).
    init(input: Int32) {
        var info = stat()
        size = fstat(input, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG ? Int(info.st_size) : nil
    }

    /// One message of `bytes` read (its newline too).
    func received(_ bytes: Int) {
        read += bytes + 1
        messages += 1
        draw(force: false)
    }

    func server(_ progress: WorkDoneProgress) {
        switch progress.kind {
        case .begin: step = (progress.title ?? "", progress.message, progress.percentage)
        case .report: step = (step?.title ?? "", progress.message, progress.percentage)
        case .end: step = nil
        }
        // Phases (no percentage) always show; steps within one at most once an interval.
        draw(force: progress.kind != .report || progress.percentage == nil)
    }

    /// The last line, then the cursor on a line of its own.
    func finish() {
        step = nil
        draw(force: true)
        if terminal && drawn { Stderr.line("") }
    }

    private func draw(force: Bool) {
        let now = Self.now()
        guard force || now - last >= interval else { return }
        last = now
        var text: String
        if let size, size > 0 {
            let percent = min(100, read * 100 / size)
            let filled = percent / 5
            text = "[" + String(repeating: "#", count: filled) + String(repeating: " ", count: 20 - filled) + "] "
            text += "\(percent)% of \(Self.megabytes(size))"
        } else {
            text = "\(Self.megabytes(read)) read"
        }
        text += ", \(messages) message\(messages == 1 ? "" : "s")"
        if let step {
            text += " | \(step.title)"
            if let message = step.message { text += ": \(message)" }
        }
        drawn = true
        if terminal {
            // Back to the line's start and clear it: one line redrawn in place.
            let bytes = Array(("\r\u{1B}[2K" + text).utf8)
            bytes.withUnsafeBytes { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
        } else {
            Stderr.line("fetchd exec: " + text)
        }
    }

    private static func megabytes(_ bytes: Int) -> String {
        let tenths = (bytes * 10 + 524_288) / 1_048_576
        return "\(tenths / 10).\(tenths % 10) MB"
    }

    private static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }
}
