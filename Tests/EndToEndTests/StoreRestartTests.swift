import JSON
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The store over the real binary: data saved by one process is there for the next, and a
/// refused migration leaves the file as it was.
@Suite(.serialized) struct StoreRestartTests {
    /// The fetchd binary in the build directory of this test bundle.
    static var binary: String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        let exe = n > 0 ? String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        guard let slash = exe.lastIndex(of: "/") else { return "fetchd" }
        return String(exe[..<slash]) + "/fetchd"
    }

    /// Runs fetchd with `arguments`, feeding it `lines` (NDJSON) and EOF; its replies, parsed.
    static func run(_ arguments: [String], _ lines: [String]) throws -> (replies: [JSON], status: Int32) {
        var input: [Int32] = [0, 0]
        var output: [Int32] = [0, 0]
        // Close-on-exec: a process spawned by a test running in parallel must not hold these open.
        guard pipe(&input) == 0, pipe(&output) == 0 else { throw SpawnFailed() }
        for fd in input + output { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input[0], 0)
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addclose(&actions, input[1])
        posix_spawn_file_actions_addclose(&actions, output[0])
        let argv = ([binary] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, binary, &actions, nil, argv, environ) == 0 else {
            for fd in input + output { close(fd) }
            throw SpawnFailed()
        }
        close(input[0])
        close(output[1])
        let text = Array(lines.map { $0 + "\n" }.joined().utf8)
        _ = text.withUnsafeBytes { write(input[1], $0.baseAddress, $0.count) }
        close(input[1])
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(output[0], $0.baseAddress, $0.count) }
            if n <= 0 { break }
            bytes += chunk[0..<n]
        }
        close(output[0])
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        let replies = try bytes.split(separator: 0x0A).map { try JSON.parse(Array($0)) }
        return (replies, (status >> 8) & 0xFF)
    }

    struct SpawnFailed: Error {}

    /// Runs `body` with a store path in a fresh scratch directory, which is removed afterwards
    /// whatever the outcome (the store file and its -wal / -shm files with it).
    static func withStoreFile(_ body: (String) throws -> Void) rethrows {
        let dir = TempDir()
        try withExtendedLifetime(dir) { try body(dir.file("store.sqlite")) }
    }

    static func model(extra: String = "") -> String {
        #"{"model": {"entities": [{"name": "Note", "attributes": {"text": {"type": "string"}, "at": {"type": "date", "optional": true}EXTRA}}]}}"#
            .replacing("EXTRA", with: extra)
    }

    @Test func savedObjectsSurviveARestart() throws {
        try Self.withStoreFile { file in
            let open =
                #"{"jsonrpc":"2.0","id":1,"method":"store/open","params":"# + Self.model().dropLast()
                + #", "path": "\#(file)"}}"#
            let first = try Self.run(
                [],
                [
                    open,
                    #"{"jsonrpc":"2.0","id":2,"method":"context/insert","params":{"context":"main","entity":"Note","values":{"text":"kept","at":"2024-05-01T12:00:00+02:00"}}}"#,
                    #"{"jsonrpc":"2.0","id":3,"method":"context/save","params":{"context":"main"}}"#,
                    #"{"jsonrpc":"2.0","id":4,"method":"context/insert","params":{"context":"main","entity":"Note","values":{"text":"unsaved"}}}"#,
                ])
            #expect(first.status == 0)
            #expect(first.replies.first?["result"] == ["entities": ["Note"], "migrated": false])
            #expect(first.replies.count == 4)
            let second = try Self.run(
                [],
                [
                    open,
                    #"{"jsonrpc":"2.0","id":2,"method":"context/fetch","params":{"context":"main","request":{"entity":"Note"}}}"#,
                    #"{"jsonrpc":"2.0","id":3,"method":"context/insert","params":{"context":"main","entity":"Note","values":{"text":"next"}}}"#,
                ])
            #expect(second.replies.count == 3)
            #expect(
                second.replies[1]["result"] == [
                    "objects": [["id": "Note/1", "text": "kept", "at": "2024-05-01T10:00:00.000Z"]]
                ])
            // Note/2 was handed out to the unsaved insert: never again.
            #expect(second.replies[2]["result"]?["object"]?["id"] == "Note/3")
        }
    }

    @Test func refusedMigrationLeavesTheFileUntouched() throws {
        try Self.withStoreFile { file in
            let open =
                #"{"jsonrpc":"2.0","id":1,"method":"store/open","params":"# + Self.model().dropLast()
                + #", "path": "\#(file)"}}"#
            _ = try Self.run(
                [],
                [
                    open,
                    #"{"jsonrpc":"2.0","id":2,"method":"context/insert","params":{"context":"main","entity":"Note","values":{"text":"a"}}}"#,
                    #"{"jsonrpc":"2.0","id":3,"method":"context/save","params":{"context":"main"}}"#,
                ])
            let before = fileBytes(file)
            #expect(before?.isEmpty == false, "the store file exists")
            let changed =
                #"{"jsonrpc":"2.0","id":1,"method":"store/open","params":"#
                + Self.model().replacing(#""text": {"type": "string"}"#, with: #""text": {"type": "integer"}"#)
                .dropLast() + #", "path": "\#(file)"}}"#
            let refused = try Self.run([], [changed])
            #expect(refused.replies.first?["error"]?["data"]?["kind"] == "migrationRefused")
            #expect(fileBytes(file) == before)
            let added =
                #"{"jsonrpc":"2.0","id":1,"method":"store/open","params":"#
                + Self.model(extra: #", "n": {"type": "integer", "default": 7}"#).dropLast()
                + #", "path": "\#(file)"}}"#
            let migrated = try Self.run(
                [],
                [
                    added,
                    #"{"jsonrpc":"2.0","id":2,"method":"context/get","params":{"context":"main","ids":["Note/1"]}}"#,
                ])
            #expect(migrated.replies.first?["result"]?["migrated"] == true)
            #expect(
                migrated.replies.last?["result"] == ["objects": [["id": "Note/1", "text": "a", "at": nil, "n": 7]]])
        }
    }
}
