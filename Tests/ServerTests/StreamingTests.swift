import Controllers
import JSON
import JSONRPC
import Testing

@testable import Server

/// A big change cycle streams (Session.streamOutput, Outbox.streamIfMany): its notifications
/// start going out while later controllers still work, and the bytes are exactly those of the
/// same session without streaming. A small cycle, or one whose message reports `$/progress`,
/// waits for the message's end as before.
@Suite struct StreamingTests {
    /// Counts the controllers' steps of the cycle under way (told after the server's state,
    /// which streams: registered after it).
    final class Steps: ControllerObserver {
        var count = 0
        func controllerDidApply(_ step: ControllerCycle.Step) { count = step.index + 1 }
        func controllersDidApply(_ cycle: ControllerCycle) { count = 0 }
    }

    /// Every byte written, how many frames went through the stream sink, and how many
    /// controllers had applied the cycle when the first did.
    final class Wire {
        let server = Server()
        let session: Session
        let steps = Steps()
        var output: [UInt8] = []
        var streamed = 0
        var stepsAtFirstStream: Int?
        var direct = 0
        init(streaming: Bool) {
            session = Session(handler: server, mode: .auto, limits: FramingLimits())
            if streaming {
                session.streamOutput = { [unowned self] frame in
                    if streamed == 0 { stepsAtFirstStream = steps.count }
                    streamed += 1
                    output += frame.contents
                }
            }
            session.directOutput = { [unowned self] frame in
                direct += 1
                output += frame.contents
            }
        }
        func send(_ body: String) {
            session.receive(Array((body + "\n").utf8)) { output += $0.contents }
        }
    }

    /// Equal bytes, but for the durations `$/progress` ends with (a comparison that does not
    /// print megabytes when it fails).
    static func same(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        func timeless(_ bytes: [UInt8]) -> String {
            String(decoding: bytes, as: UTF8.self).replacing(#/done in \d+ ms/#, with: "done")
        }
        return timeless(a) == timeless(b)
    }

    static let model =
        #"{"entities":[{"name":"N","attributes":{"t":{"type":"string"},"r":{"type":"integer","indexed":true}}}]}"#

    static func insert(_ id: Int, _ count: Int, from start: Int, token: Bool = false) -> String {
        let rows = (start..<start + count).map { "[\"x\",\($0)]" }.joined(separator: ",")
        let progress = token ? #","workDoneToken":"w""# : ""
        return
            #"{"jsonrpc":"2.0","id":\#(id),"method":"store/batchInsert","params":{"entity":"N","keys":["t","r"],"rows":[\#(rows)]\#(progress)}}"#
    }

    /// Opens a store with `controllers` controllers on main; the output so far is dropped.
    static func opened(streaming: Bool, controllers: Int) -> Wire {
        let wire = Wire(streaming: streaming)
        wire.send(#"{"jsonrpc":"2.0","id":1,"method":"store/open","params":{"model":\#(model)}}"#)
        wire.send(insert(2, 50, from: 0))
        wire.server.controllers.registry?.addObserver(wire.steps)
        for i in 0..<controllers {
            wire.send(
                #"{"jsonrpc":"2.0","id":\#(10 + i),"method":"controller/create","params":{"context":"main","name":"c\#(i)","request":{"entity":"N","sortDescriptors":[{"key":"r"}]}}}"#
            )
        }
        wire.output = []
        return wire
    }

    @Test func aBigCycleStreamsTheSameBytesAndASmallOneDoesNot() throws {
        let on = Self.opened(streaming: true, controllers: 40)
        let off = Self.opened(streaming: false, controllers: 40)
        // 40 controllers x (200 inserts + will/did) = 8,080 notifications: streamed in part.
        for wire in [on, off] { wire.send(Self.insert(3, 200, from: 1000)) }
        #expect(Self.same(on.output, off.output))
        // The first part went out once 4096 were queued: while the 21st controller worked.
        #expect(on.stepsAtFirstStream == Outbox.streamThreshold / 202)
        #expect(on.streamed == 40 * 202)
        #expect(off.streamed == 0)
        let messages = Harness.messages(on.output, framing: .ndjson)
        #expect(messages.count == 40 * 202 + 1)
        #expect(messages.last?["result"]?["count"] == 200)

        // A small cycle (one insert, 40 x 3 notifications) waits for the message's end.
        on.streamed = 0
        on.output = []
        off.output = []
        for wire in [on, off] { wire.send(Self.insert(4, 1, from: 5000)) }
        #expect(Self.same(on.output, off.output))
        #expect(on.streamed == 0)
    }

    @Test func aBigBatchCycleStreamsInOrderBeforeItsAnswers() throws {
        let on = Self.opened(streaming: true, controllers: 30)
        let off = Self.opened(streaming: false, controllers: 30)
        let batch = "[" + Self.insert(3, 150, from: 1000) + "," + Self.insert(4, 150, from: 2000) + "]"
        for wire in [on, off] { wire.send(batch) }
        #expect(Self.same(on.output, off.output))
        // The first cycle (30 x 152 notifications) streams from its 27th controller on, and
        // the message keeps streaming: the second cycle goes out step by step.
        #expect(on.stepsAtFirstStream == Outbox.streamThreshold / 152)
        #expect(on.streamed == 2 * 30 * 152)
        let messages = Harness.messages(on.output, framing: .ndjson)
        #expect(messages.count == 2 * 30 * 152 + 1)
    }

    @Test func aMessageThatReportsProgressStreamsNothing() throws {
        for batch in [false, true] {
            let on = Self.opened(streaming: true, controllers: 40)
            let off = Self.opened(streaming: false, controllers: 40)
            // In a batch, an earlier request's big cycle waits too: the progress goes first.
            let body =
                batch
                ? "[" + Self.insert(3, 200, from: 1000) + "," + Self.insert(4, 1, from: 3000, token: true) + "]"
                : Self.insert(3, 200, from: 1000, token: true)
            for wire in [on, off] { wire.send(body) }
            #expect(Self.same(on.output, off.output))
            #expect(on.streamed == 0)
            #expect(on.direct > 0)
            let first = Harness.messages(on.output, framing: .ndjson).first
            #expect(first?["method"] == "$/progress")
        }
    }
}
