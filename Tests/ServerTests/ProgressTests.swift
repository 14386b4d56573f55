import JSON
import JSONRPC
import TestSupport
import Testing

@testable import Server

/// LSP's work-done progress (protocol.md §2, "Progress"): a long request given a
/// `workDoneToken` reports `$/progress` begin, reports and end, each written at once through
/// the transport's direct output, before the cycle's controller notifications and the answer.
@Suite struct ProgressTests {
    /// Every frame in the order it left, and whether it went out directly (mid-request).
    final class Wire {
        let session = Session(handler: Server(), mode: .auto, limits: FramingLimits())
        var frames: [(message: JSON, direct: Bool)] = []
        init() {
            session.directOutput = { [unowned self] frame in
                frames.append((try! JSON.parse(Array(frame.contents)), true))
            }
        }
        func send(_ body: String) {
            session.receive(Array((body + "\n").utf8)) { frames.append((try! JSON.parse(Array($0.contents)), false)) }
        }
        func take() -> [(message: JSON, direct: Bool)] {
            defer { frames = [] }
            return frames
        }
    }

    static let model =
        #"{"entities":[{"name":"N","attributes":{"t":{"type":"string"},"r":{"type":"integer","indexed":true}}}]}"#

    static func opened() -> Wire {
        let wire = Wire()
        wire.send(#"{"jsonrpc":"2.0","id":1,"method":"store/open","params":{"model":\#(model)}}"#)
        wire.send(
            #"{"jsonrpc":"2.0","id":2,"method":"controller/create","params":{"context":"main","name":"c","request":{"entity":"N","sortDescriptors":[{"key":"r"}]}}}"#
        )
        _ = wire.take()
        return wire
    }

    @Test func aBatchInsertReportsBeginStepsAndEndBeforeItsCycleAndAnswer() throws {
        let wire = Self.opened()
        let rows = (0..<20000).map { "[\"x\",\($0)]" }.joined(separator: ",")
        wire.send(
            #"{"jsonrpc":"2.0","id":3,"method":"store/batchInsert","params":{"entity":"N","keys":["t","r"],"rows":[\#(rows)],"workDoneToken":"load"}}"#
        )
        let frames = wire.take()
        let progress = frames.filter { $0.message["method"] == "$/progress" }
        #expect(progress.allSatisfy { $0.direct && $0.message["params"]?["token"] == "load" })
        let kinds = progress.compactMap { $0.message["params"]?["value"]?["kind"]?.stringValue }
        #expect(kinds.first == "begin" && kinds.last == "end")
        #expect(kinds.dropFirst().dropLast().allSatisfy { $0 == "report" })
        #expect(progress.first?.message["params"]?["value"]?["title"] == "store/batchInsert")
        let messages = progress.compactMap { $0.message["params"]?["value"]?["message"]?.stringValue }
        #expect(messages.contains("checking 20000 rows"))
        #expect(messages.contains("updating controllers"))
        #expect(messages.last?.hasPrefix("done in ") == true)
        // The end comes first; then the cycle's notifications and the answer, written together.
        let end = try #require(frames.firstIndex { $0.message["params"]?["value"]?["kind"] == "end" })
        let rest = frames[(end + 1)...]
        #expect(rest.allSatisfy { !$0.direct })
        #expect(rest.first?.message["method"] == "controller/willChangeContent")
        #expect(rest.last?.message["result"]?["count"] == 20000)
    }

    @Test func withoutATokenNothingIsReported() {
        let wire = Self.opened()
        wire.send(
            #"{"jsonrpc":"2.0","id":3,"method":"store/batchInsert","params":{"entity":"N","keys":["t","r"],"rows":[["a",1]]}}"#
        )
        let frames = wire.take()
        #expect(!frames.contains { $0.message["method"] == "$/progress" || $0.direct })
        #expect(frames.last?.message["result"]?["count"] == 1)
    }

    @Test func aFailedRequestEndsItsProgressAsFailedAndATokenOfTheWrongTypeIsRefused() {
        let wire = Self.opened()
        wire.send(
            #"{"jsonrpc":"2.0","id":3,"method":"store/batchInsert","params":{"entity":"N","keys":["t","r"],"rows":[["a","one"]],"workDoneToken":9}}"#
        )
        var frames = wire.take()
        let kinds = frames.compactMap { $0.message["params"]?["value"]?["kind"]?.stringValue }
        #expect(kinds.first == "begin" && kinds.last == "end")
        #expect(
            frames.last { $0.direct }?.message["params"]?["value"]?["message"]?.stringValue?.hasPrefix("failed after")
                == true)
        #expect(frames.last?.message["error"]?["data"]?["kind"] == "validation")
        wire.send(
            #"{"jsonrpc":"2.0","id":4,"method":"store/batchDelete","params":{"entity":"N","workDoneToken":true}}"#)
        frames = wire.take()
        #expect(frames.count == 1)
        #expect(frames.first?.message["error"]?["data"]?["param"] == "workDoneToken")
    }

    /// Without a transport's direct output (an in-process caller), progress is still sent,
    /// queued with the message's other notifications.
    @Test func withoutDirectOutputProgressIsQueued() {
        let wire = Self.opened()
        wire.session.directOutput = nil
        wire.send(#"{"jsonrpc":"2.0","id":3,"method":"store/batchDelete","params":{"entity":"N","workDoneToken":"d"}}"#)
        let frames = wire.take()
        let kinds = frames.compactMap { $0.message["params"]?["value"]?["kind"]?.stringValue }
        #expect(kinds == ["begin", "report", "report", "end"])
        #expect(frames.allSatisfy { !$0.direct })
        #expect(frames.last?.message["result"]?["count"] == 0)
    }
}
