#if canImport(Glibc)
    import Glibc
#endif

/// SIGTERM/SIGINT stop the read loop so the store can be closed cleanly, without a poll(2) per
/// read: the handler records the signal and points stdin at /dev/null (dup2 is
/// async-signal-safe). A read already blocked returns EINTR (no SA_RESTART); a read about to
/// start sees end of file. Either way the loop asks `Signals.caught` and stops.
enum Signals {
    // Written only by the signal handler; read by the loop after a read returns.
    nonisolated(unsafe) static var caught: Int32 = 0
    nonisolated(unsafe) static var devNull: Int32 = -1

    static func install() {
        devNull = open("/dev/null", O_RDONLY)
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { signal in
            Signals.caught = signal
            if Signals.devNull >= 0 { dup2(Signals.devNull, STDIN_FILENO) }
        }
        action.sa_flags = 0 // no SA_RESTART: a blocked read must return
        sigemptyset(&action.sa_mask)
        sigaction(SIGTERM, &action, nil)
        sigaction(SIGINT, &action, nil)
        // A parent may spawn us with signals blocked (swift-corelibs-foundation's Process does).
        var unblock = sigset_t()
        sigemptyset(&unblock)
        sigaddset(&unblock, SIGTERM)
        sigaddset(&unblock, SIGINT)
        sigprocmask(SIG_UNBLOCK, &unblock, nil)
    }
}
