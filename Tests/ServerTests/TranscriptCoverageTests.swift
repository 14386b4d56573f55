import Foundation
import JSON
import JSONRPC
import Server
import Testing

/// The transcripts together show every method the server registers, every notification and
/// every error kind that can reach the wire, in both framings (Tests/Transcripts/README.md). A method or kind
/// added without a transcript fails here.
@Suite struct TranscriptCoverageTests {
    struct Session {
        var name: String
        var transcript: Transcript
        /// Every message sent, batches flattened.
        var sent: [JSON]
        /// Every message written, batches flattened.
        var written: [JSON]
    }

    static let sessions: [Session] = TranscriptTests.files.compactMap { name in
        guard let data = FileManager.default.contents(atPath: TranscriptTests.directory + "/" + name),
            let transcript = try? Transcript(parsing: [UInt8](data))
        else { return nil }
        var sent: [JSON] = []
        var written: [JSON] = []
        for (_, step) in transcript.steps {
            switch step {
            case .send(let bytes): if let json = try? JSON.parse(bytes) { sent += json.arrayValue ?? [json] }
            case .expect(let json): written += json.arrayValue ?? [json]
            case .sendBytes, .exitCode: continue
            }
        }
        return Session(name: name, transcript: transcript, sent: sent, written: written)
    }

    static var methodsSent: Set<String> { Set(sessions.flatMap { $0.sent.compactMap { $0["method"]?.stringValue } }) }
    static var errorKinds: Set<String> {
        Set(sessions.flatMap { $0.written.compactMap { $0["error"]?["data"]?["kind"]?.stringValue } })
    }

    @Test func everyRegisteredMethodIsSentInATranscript() {
        let names = Server(logger: TranscriptReplay.quietLogger).methods.names
        #expect(names.contains("controller/create") && names.contains("context/save"), "\(names)")
        let sent = Self.methodsSent
        for name in names { #expect(sent.contains(name), "no transcript sends \(name)") }
    }

    @Test func everyNotificationIsWrittenInATranscript() {
        let written = Set(Self.sessions.flatMap { $0.written.compactMap { $0["method"]?.stringValue } })
        for name in [
            "controller/willChangeContent", "controller/didChangeSection", "controller/didChangeObject",
            "controller/didChangeContent",
        ] {
            #expect(written.contains(name), "no transcript shows \(name)")
        }
        let objectChanges = Set(
            Self.sessions.flatMap {
                $0.written.filter { $0["method"]?.stringValue == "controller/didChangeObject" }.compactMap {
                    $0["params"]?["type"]?.stringValue
                }
            })
        #expect(objectChanges == ["insert", "delete", "move", "update"])
    }

    /// `storeClosed` is raised only by a store that was closed, and the server drops its
    /// contexts and controllers when it closes one, so no request can reach a closed store.
    static let unreachableKinds: Set<String> = ["storeClosed"]
    /// `storeBusy` needs another process holding the file's write lock while the save runs,
    /// which a replayed transcript cannot arrange; ProcessConflictTests covers it.
    /// `storeUnavailable` needs a shared dataset's server connection to drop mid-session;
    /// the PostgreSQL suites (make test-postgres) cover it.
    static let notReplayableKinds: Set<String> = ["storeBusy", "storeUnavailable"]

    @Test func everyErrorKindThatCanReachTheWireIsInATranscript() {
        let kinds = Self.errorKinds
        let protocolKinds = [
            "parseError", "invalidRequest", "messageTooLarge", "initializeNotFirst", "alreadyInitialized",
            "shutdownRequested", "methodNotFound", "invalidParams",
        ]
        for kind in protocolKinds + ErrorTable.codes.map(\.kind.rawValue)
        where !Self.unreachableKinds.contains(kind) && !Self.notReplayableKinds.contains(kind) {
            #expect(kinds.contains(kind), "no transcript shows an error of kind \(kind)")
        }
        for kind in Self.unreachableKinds {
            #expect(ErrorTable.codes.contains { $0.kind.rawValue == kind }, "\(kind) is no longer an engine error kind")
        }
    }

    @Test func controllersAreShownInBothFramings() {
        for framing in Framing.allCases {
            #expect(
                Self.sessions.contains { session in
                    session.transcript.framing == framing
                        && session.written.contains { $0["method"]?.stringValue == "controller/didChangeObject" }
                }, "no \(framing) transcript shows controller notifications")
        }
    }
}
