import JSON

#if canImport(Glibc)
    import Glibc
#endif

/// A file written one JSON line at a time, as it happens (`--record`, `--trace`): each line
/// goes out in one write(2), so a crash loses at most the line being written.
final class JSONLinesFile {
    private let fd: Int32

    /// Opens (truncating) the file; nil if it cannot be created.
    init?(path: String) {
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        if fd < 0 { return nil }
    }

    deinit { close(fd) }

    func line(_ build: (inout JSONWriter) -> Void) {
        var writer = JSONWriter()
        build(&writer)
        writer.bytes.append(0x0A)
        writer.bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n <= 0 { if n < 0, errno == EINTR { continue } else { return } }
                offset += n
            }
        }
    }
}

/// A file that watches a session as it is served (`--record`, `--trace`): opened by path,
/// then attached; several can watch one session.
public protocol SessionTap: AnyObject {
    init?(path: String)
    func attach(to session: Session)
}
