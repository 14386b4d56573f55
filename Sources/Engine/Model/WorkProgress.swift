#if canImport(Glibc)
    import Glibc
#endif

/// How far a long piece of work has come (a batch of a million rows, a controller's first
/// fetch, a migration), for a host that shows it: the engine reports into `current` while a
/// host has set one, and the host turns the reports into its own messages (fetchd: LSP's
/// `$/progress`). Steps inside a loop are passed on at most once per `interval`; phases
/// always are.
public final class WorkProgress {
    /// The work under way on this thread. Set by the host around one request; nil (the usual
    /// case) costs the engine a check per thousands of rows. Per thread, so servers running
    /// side by side in one process (tests) never see each other's.
    public static var current: WorkProgress? {
        get { pthread_getspecific(key).map { Unmanaged<WorkProgress>.fromOpaque($0).takeUnretainedValue() } }
        set {
            let old = pthread_getspecific(key)
            pthread_setspecific(key, newValue.map { Unmanaged.passRetained($0).toOpaque() })
            if let old { Unmanaged<WorkProgress>.fromOpaque(old).release() }
        }
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// A message, and how far along the work is (0...100) when that is known.
    public typealias Report = (_ message: String, _ percentage: Int?) -> Void

    private let report: Report
    private let interval: UInt64
    private var last: UInt64 = 0

    public init(intervalMilliseconds: Int = 100, report: @escaping Report) {
        self.report = report
        self.interval = UInt64(intervalMilliseconds) * 1_000_000
    }

    /// A new phase of the work (always reported).
    public func phase(_ message: String) {
        last = monotonicNanoseconds()
        report(message, nil)
    }

    /// `done` of `total` units of a phase; reported when `interval` has passed since the last
    /// report, with the percentage of the phase.
    public func step(_ message: String, done: Int, of total: Int) {
        let now = monotonicNanoseconds()
        guard now - last >= interval, total > 0 else { return }
        last = now
        report("\(message): \(done) of \(total)", min(100, done * 100 / total))
    }
}
