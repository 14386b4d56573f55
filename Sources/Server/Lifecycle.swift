import JSONRPC

/// LSP's lifecycle, kept optional: `initialize` may be skipped, but when sent it must be the
/// first request; after `shutdown` only `exit` is accepted; `exit` ends the process with 0
/// after `shutdown`, 1 otherwise.
public struct Lifecycle: Sendable {
    public internal(set) var initialized = false
    public internal(set) var shutdownRequested = false
    /// Requests (not notifications) seen so far.
    public internal(set) var requestCount = 0

    /// A failed `initialize` (bad params) may be retried, so it does not count as a request.
    mutating func record(_ request: Request, succeeded: Bool) {
        guard !request.isNotification, succeeded || request.method != LifecycleDeclarations.initialize.name else {
            return
        }
        requestCount += 1
    }

    /// Why a request may not run now, or nil.
    func refusal(of request: Request) -> RPCError? {
        if shutdownRequested, request.method != LifecycleDeclarations.exit.name {
            return .invalidRequest(
                "shutdown was requested: only exit is accepted", kind: "shutdownRequested",
                [("method", .string(request.method))])
        }
        if request.method == LifecycleDeclarations.initialize.name, !request.isNotification {
            if initialized {
                return .invalidRequest("initialize was already received", kind: "alreadyInitialized")
            }
            if requestCount > 0 {
                return .invalidRequest("initialize must be the first request", kind: "initializeNotFirst")
            }
        }
        return nil
    }
}
