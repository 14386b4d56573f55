import JSON

#if canImport(Glibc)
    import Glibc
#endif

/// `fetchd --trace FILE`: every message in and out, with the time it was read or written, as
/// JSON Lines: `{"time":"2026-11-27T09:00:00.123456Z","in":{...}}` and `{"time":...,"out":{...}}`.
/// A message that is not JSON (or a framing error) is traced as text (`"inText"`, `"error"`).
/// Unlike `--record` it is for reading, not replaying: times, and nothing about framing.
public final class MessageTrace: SessionTap {
    private let file: JSONLinesFile

    /// Opens (truncating) the file; nil if it cannot be created.
    public init?(path: String) {
        guard let file = JSONLinesFile(path: path) else { return nil }
        self.file = file
    }

    /// Traces `session` from now on, after whatever else already watches it (`--record`).
    public func attach(to session: Session) {
        let received = session.onReceive
        session.onReceive = { [unowned self] event in
            received?(event)
            switch event {
            case .message(let bytes):
                if let json = try? JSON.parse(bytes) {
                    entry("in") { $0.write(json) }
                } else {
                    entry("inText") { $0.write(string: String(decoding: bytes, as: UTF8.self)) }
                }
            case .error(let error):
                entry("error") { $0.write(string: "framing error: \(error)") }
            }
        }
        let wrote = session.onWrite
        session.onWrite = { [unowned self] frame, framing in
            wrote?(frame, framing)
            let body = framing == .ndjson ? frame.contents.dropLast() : frame.contents.drop { $0 != 0x7B && $0 != 0x5B }
            entry("out") { $0.bytes += body }
        }
    }

    private func entry(_ key: String, _ value: (inout JSONWriter) -> Void) {
        let time = Self.now()
        file.line {
            $0.writeRaw("{\"time\":")
            $0.write(string: time)
            $0.writeRaw(",")
            $0.write(string: key)
            $0.writeRaw(":")
            value(&$0)
            $0.writeRaw("}")
        }
    }

    /// The wall clock as ISO 8601 UTC with microseconds.
    static func now() -> String {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        var seconds = spec.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(Int(parts.tm_year) + 1900, 4))-\(pad(Int(parts.tm_mon) + 1, 2))-\(pad(Int(parts.tm_mday), 2))"
            + "T\(pad(Int(parts.tm_hour), 2)):\(pad(Int(parts.tm_min), 2)):\(pad(Int(parts.tm_sec), 2))"
            + ".\(pad(Int(spec.tv_nsec) / 1000, 6))Z"
    }
}
