#if canImport(Glibc)
    import Glibc

    /// A wake-up for commits by other processes: an inotify descriptor that becomes readable when
    /// the store's file or its write-ahead log (`-wal`, where every commit lands in WAL mode) is
    /// written. The two files are watched themselves, so other files of the directory (a log
    /// written beside the store) wake nobody; the directory is watched only for files created
    /// or moved in, so a log created later (or made again after a checkpoint truncated it away)
    /// is watched from then on. Only a hint: whether anything was committed is still asked of
    /// `hasExternalChanges()`.
    public final class StoreFileWatch {
        /// Readable when there are events: poll(2) it, then call `drain()`.
        public let descriptor: Int32
        private let directory: String
        private let names: Set<String>
        private let directoryWatch: Int32
        /// The store's own file as watched now (-1: not yet): in WAL mode only checkpoints
        /// write it, and a checkpoint commits nothing.
        private var fileWatch: Int32 = -1
        /// Whether the last `drain` read an event that may belong to a commit: a write to the
        /// log (or an event of unknown origin), not only to the file itself.
        public private(set) var logWritten = false
        /// Where events are read (one buffer for the watch's life: it is read before every message).
        private let buffer: UnsafeMutableRawPointer
        private static let bufferSize = 4096

        /// nil when inotify is unavailable (or the path is not a file path).
        public init?(path: String) {
            guard path != ":memory:", !path.isEmpty, !path.hasPrefix("file:") else { return nil }
            let slash = path.lastIndex(of: "/")
            let directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
            let base = slash.map { String(path[path.index(after: $0)...]) } ?? path
            let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
            guard fd >= 0 else { return nil }
            let watch = inotify_add_watch(fd, directory, UInt32(IN_CREATE | IN_MOVED_TO))
            guard watch >= 0 else {
                close(fd)
                return nil
            }
            descriptor = fd
            directoryWatch = watch
            self.directory = directory
            names = [base, base + "-wal"]
            buffer = UnsafeMutableRawPointer.allocate(byteCount: Self.bufferSize, alignment: 8)
            for name in names { watchFile(name) }
        }

        deinit {
            close(descriptor)
            buffer.deallocate()
        }

        /// Watches one of the store's files for writes (nothing when it does not exist yet).
        private func watchFile(_ name: String) {
            let wd = inotify_add_watch(descriptor, directory + "/" + name, UInt32(IN_MODIFY | IN_CLOSE_WRITE))
            if !name.hasSuffix("-wal") && wd >= 0 { fileWatch = wd }
        }

        /// Reads every pending event; true when one concerned the store's files.
        @discardableResult
        public func drain() -> Bool {
            var relevant = false
            logWritten = false
            let size = Self.bufferSize
            while true {
                let n = read(descriptor, buffer, size)
                guard n > 0 else { return relevant }
                // Room left for one more event of the longest name: the queue was empty.
                let emptied = n <= size - 16 - Int(NAME_MAX) - 1
                var offset = 0
                // struct inotify_event: wd, mask, cookie, len (4 bytes each), then len bytes of name.
                while offset + 16 <= n {
                    let wd = buffer.load(fromByteOffset: offset, as: Int32.self)
                    let mask = buffer.load(fromByteOffset: offset + 4, as: UInt32.self)
                    let length = Int(buffer.load(fromByteOffset: offset + 12, as: UInt32.self))
                    if wd == directoryWatch {
                        if length > 0 {
                            let name = String(
                                cString: buffer.advanced(by: offset + 16).assumingMemoryBound(to: CChar.self))
                            if names.contains(name) {
                                relevant = true
                                if name.hasSuffix("-wal") { logWritten = true }
                                watchFile(name)
                            }
                        }
                    } else if mask & UInt32(IN_IGNORED) == 0 {
                        // One of the store's own files was written (or the queue overflowed).
                        relevant = true
                        if wd != fileWatch { logWritten = true }
                    }
                    offset += 16 + length
                }
                if emptied { return relevant }
            }
        }
    }
#endif
