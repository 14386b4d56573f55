import JSON
import JSONRPC
import Model

/// One request's `$/progress` (protocol.md §2, "Progress"): `begin` when it starts, the
/// engine's reports (through `WorkProgress.current`) while it runs, `end` once its change
/// cycle has reached the controllers. Each notification is written at once, ahead of the
/// request's other output.
final class RequestProgress {
    private let token: JSON
    private let send: (WorkDoneProgress) -> Void
    private let started: UInt64

    /// The request's token, when it gives one (asked only of a method that reports progress).
    static func token(_ params: Params?) throws -> JSON? {
        try ParamReader(params: params)[ProgressDeclarations.workDoneToken]
    }

    init(token: JSON, method: String, send: @escaping (WorkDoneProgress) -> Void) {
        self.token = token
        self.send = send
        started = monotonicNanoseconds()
        send(WorkDoneProgress(token: token, kind: .begin, title: method, message: "started", percentage: 0))
        WorkProgress.current = WorkProgress { [token, send] message, percentage in
            send(WorkDoneProgress(token: token, kind: .report, message: message, percentage: percentage))
        }
    }

    func phase(_ message: String) { WorkProgress.current?.phase(message) }

    func end(failed: Bool) {
        WorkProgress.current = nil
        let millis = (monotonicNanoseconds() - started) / 1_000_000
        send(
            WorkDoneProgress(
                token: token, kind: .end, message: failed ? "failed after \(millis) ms" : "done in \(millis) ms"))
    }
}
