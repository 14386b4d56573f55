import Foundation

/// The physical floor under every request over the stdio pipe: a line written to a child
/// process and read back (the child is this same binary in `--echo` mode), blocking read/write
/// on raw file descriptors, no JSON.
enum PipeBench {
    /// A typical small request line (the size of a context/update).
    static let message =
        Array(
            #"{"jsonrpc":"2.0","id":12,"method":"context/update","params":{"context":"main","id":"Msg/4488","values":{"ts":2362742405662}}}"#
                .utf8) + [10]

    static func run(iterations: Int) throws -> [Double] {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        child.arguments = ["--echo"]
        let toChild = Pipe()
        let fromChild = Pipe()
        child.standardInput = toChild
        child.standardOutput = fromChild
        try child.run()
        let out = toChild.fileHandleForWriting.fileDescriptor
        let input = fromChild.fileHandleForReading.fileDescriptor
        var buffer = [UInt8](repeating: 0, count: 4096)
        let samples = (0..<iterations).map { _ in
            Clock.measure {
                message.withUnsafeBytes { _ = write(out, $0.baseAddress, $0.count) }
                var received = 0
                while received < message.count {
                    let got = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
                    if got <= 0 { break }
                    received += got
                }
            }
        }
        try toChild.fileHandleForWriting.close()
        child.waitUntilExit()
        return samples
    }

    /// Child side: copy stdin to stdout until EOF.
    static func echo() -> Never {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let got = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
            if got <= 0 { exit(0) }
            var sent = 0
            while sent < got {
                let n = buffer.withUnsafeBytes { write(1, $0.baseAddress! + sent, got - sent) }
                if n <= 0 { exit(1) }
                sent += n
            }
        }
    }
}
