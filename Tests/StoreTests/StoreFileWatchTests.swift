import TestSupport
import Testing

@testable import Store

#if canImport(Glibc)
    import Glibc

    /// What wakes `--watch auto` on a file store (protocol.md §5, "Watching"): its own files
    /// being written, and a `-wal` created later; never another file of the directory.
    @Suite struct StoreFileWatchTests {
        func readable(_ fd: Int32) -> Bool {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            return poll(&p, 1, 50) == 1
        }

        func append(_ path: String) {
            let fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
            _ = write(fd, "x", 1)
            close(fd)
        }

        @Test func onlyTheStoresFilesWakeIt() throws {
            let dir = TempDir()
            let store = dir.file("s.sqlite")
            append(store)
            let watch = try #require(StoreFileWatch(path: store))
            // Another file beside the store: created (seen by the directory watch), then written.
            append(dir.file("app.log"))
            _ = watch.drain()
            for _ in 0..<20 { append(dir.file("app.log")) }
            #expect(!readable(watch.descriptor))
            // The log made after the watch began, then written again: both wake it.
            append(store + "-wal")
            #expect(readable(watch.descriptor))
            #expect(watch.drain())
            append(store + "-wal")
            #expect(readable(watch.descriptor) && watch.drain())
            append(store)
            #expect(readable(watch.descriptor) && watch.drain())
        }
    }
#endif
