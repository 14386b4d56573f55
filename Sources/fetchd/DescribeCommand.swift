import ArgumentParser
import Logging
import Server

/// `fetchd describe`: prints the OpenRPC document `rpc.discover` answers (2-space indented,
/// trailing newline), the one checked in as clients/openrpc.json.
struct DescribeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "describe",
        abstract: "Print the OpenRPC document of every method and notification (what rpc.discover answers).")

    func run() throws {
        let server = Server(logger: Logger(label: "fetchd.describe", factory: { _ in SwiftLogNoOpLogHandler() }))
        print(OpenRPCDocument.pretty(server.openRPCDocument), terminator: "")
    }
}
