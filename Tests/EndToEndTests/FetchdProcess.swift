import Foundation
import Testing

/// The built `fetchd` binary on real pipes.
final class FetchdProcess: @unchecked Sendable {
    let process = Process()
    let stdin = Pipe()
    let stdout = Pipe()
    let stderr = Pipe()

    /// `FETCHD_BIN` if set, else the `fetchd` built beside the test bundle.
    static var binary: String {
        if let path = ProcessInfo.processInfo.environment["FETCHD_BIN"] { return path }
        let bundleDir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        var candidates = [bundleDir.appendingPathComponent("fetchd").path]
        // swift-testing may run from inside the .xctest bundle directory on some layouts.
        candidates.append(bundleDir.deletingLastPathComponent().appendingPathComponent("fetchd").path)
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[0]
    }

    init(_ arguments: [String] = []) throws {
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = arguments
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
    }

    func write(_ text: String) { stdin.fileHandleForWriting.write(Data(text.utf8)) }
    func write(_ bytes: [UInt8]) { stdin.fileHandleForWriting.write(Data(bytes)) }
    func closeInput() { try? stdin.fileHandleForWriting.close() }

    /// Reads stdout until `count` bytes or end of file.
    func read(atLeast count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        while bytes.count < count {
            let chunk = stdout.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            bytes += chunk
        }
        return bytes
    }

    /// Reads one NDJSON line from stdout.
    func readLine() -> String? {
        var bytes: [UInt8] = []
        while true {
            let chunk = stdout.fileHandleForReading.readData(ofLength: 1)
            if chunk.isEmpty { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
            if chunk.first == 0x0A { return String(decoding: bytes, as: UTF8.self) }
            bytes += chunk
        }
    }

    /// Everything left on stdout and stderr, then the exit status. Read concurrently (so a full
    /// pipe cannot stall fetchd); a fetchd still running after `timeout` seconds is killed and
    /// the test fails.
    func finish(timeout: Double = 30) -> (output: String, stderr: String, status: Int32) {
        final class Box: @unchecked Sendable {
            var out = Data()
            var err = Data()
        }
        let box = Box()
        let group = DispatchGroup()
        let outHandle = stdout.fileHandleForReading
        let errHandle = stderr.fileHandleForReading
        DispatchQueue.global().async(group: group) { box.out = outHandle.readDataToEndOfFile() }
        DispatchQueue.global().async(group: group) { box.err = errHandle.readDataToEndOfFile() }
        if group.wait(timeout: .now() + timeout) == .timedOut {
            Issue.record("fetchd did not exit within \(timeout) s")
            kill(process.processIdentifier, SIGKILL)
            group.wait()
        }
        process.waitUntilExit()
        return (
            String(decoding: box.out, as: UTF8.self), String(decoding: box.err, as: UTF8.self),
            process.terminationStatus
        )
    }

    /// Runs fetchd on `input` (stdin closed after it) and collects the result.
    static func run(_ arguments: [String] = [], input: String) throws -> (output: String, stderr: String, status: Int32)
    {
        let p = try FetchdProcess(arguments)
        p.write(input)
        p.closeInput()
        return p.finish()
    }
}

func lspFrame(_ body: String) -> String { "Content-Length: \(body.utf8.count)\r\n\r\n\(body)" }
