#if canImport(Glibc)
    import Glibc

    /// A wake-up for commits by other processes: an inotify descriptor that becomes readable when
    /// the store's file or its write-ahead log (`-wal`, where every commit lands in WAL mode) is
    /// written. Watches the directory, so a log created later is seen too; other files' events
    /// are read and ignored. Only a hint: whether anything was committed is still asked of
    /// `hasExternalChanges()`.
    public final class StoreFileWatch {
        /// Readable when there are events: poll(2) it, then call `drain()`.
        public let descriptor: Int32
        private let names: Set<String>

        /// nil when inotify is unavailable (or the path is not a file path).
        public init?(path: String) {
            guard path != ":memory:", !path.isEmpty, !path.hasPrefix("file:") else { return nil }
            let slash = path.lastIndex(of: "/")
            let directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
            let base = slash.map { String(path[path.index(after: $0)...]) } ?? path
            let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
            guard fd >= 0 else { return nil }
            let mask = UInt32(IN_MODIFY | IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE)
            guard inotify_add_watch(fd, directory, mask) >= 0 else {
                close(fd)
                return nil
            }
            descriptor = fd
            names = [base, base + "-wal"]
        }

        deinit { close(descriptor) }

        /// Reads every pending event; true when one concerned the store's files.
        @discardableResult
        public func drain() -> Bool {
            var relevant = false
            let size = 4096
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
            defer { buffer.deallocate() }
            while true {
                let n = read(descriptor, buffer, size)
                guard n > 0 else { return relevant }
                var offset = 0
                // struct inotify_event: wd, mask, cookie, len (4 bytes each), then len bytes of name.
                while offset + 16 <= n {
                    let length = Int(buffer.load(fromByteOffset: offset + 12, as: UInt32.self))
                    if length > 0 {
                        let name = String(cString: buffer.advanced(by: offset + 16).assumingMemoryBound(to: CChar.self))
                        if names.contains(name) { relevant = true }
                    }
                    offset += 16 + length
                }
            }
        }
    }
#endif
