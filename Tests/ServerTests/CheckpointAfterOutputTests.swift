import Foundation
import JSON
import JSONRPC
import Server
import TestSupport
import Testing

/// What can wait for the answer runs once a message's answer is written: the store's
/// checkpoint (not inside the commit that made it due: the answer leaves before the database
/// file grows), and freeing a batch insert's rows.
@Suite struct CheckpointAfterOutputTests {
    @Test func theAnswerIsWrittenBeforeTheCheckpoint() throws {
        let dir = TempDir()
        let path = dir.file("s.sqlite")
        let size = { ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? -1 }
        let model = #"{"entities": [{"name": "Note", "attributes": {"text": {"type": "string"}}}]}"#
        let session = Session(handler: Server(), mode: .auto, limits: FramingLimits())
        var answers: [Int] = []
        let send = { (body: String) in
            session.receive(Array((body + "\n").utf8)) { _ in answers.append(size()) }
        }
        send(#"{"jsonrpc":"2.0","id":1,"method":"store/open","params":{"path":"\#(path)","model":\#(model)}}"#)
        let opened = size()
        // About 1500 pages of rows: past the 1000 at which a checkpoint is due.
        let text = String(repeating: "x", count: 3000)
        let rows = Array(repeating: "[\"\(text)\"]", count: 2000).joined(separator: ",")
        answers = []
        send(
            #"{"jsonrpc":"2.0","id":2,"method":"store/batchInsert","params":{"entity":"Note","keys":["text"],"rows":[\#(rows)]}}"#
        )
        #expect(answers == [opened], "the answer went out before the file grew")
        #expect(size() > opened + 1000 * 3000, "then the checkpoint copied the rows into the file")
    }

    @Test func aBatchInsertsRowsAreFreedAfterTheAnswer() throws {
        let dir = TempDir()
        let server = Server()
        let session = Session(handler: server, mode: .auto, limits: FramingLimits())
        var keptAtAnswer: [Int] = []
        let send = { (body: String) in
            session.receive(Array((body + "\n").utf8)) { _ in
                keptAtAnswer.append(server.contexts.graph?.deferredCount ?? -1)
            }
        }
        let model = #"{"entities": [{"name": "Note", "attributes": {"n": {"type": "integer"}}}]}"#
        send(
            #"{"jsonrpc":"2.0","id":1,"method":"store/open","params":{"path":"\#(dir.file("s.sqlite"))","model":\#(model)}}"#
        )
        keptAtAnswer = []
        send(
            #"{"jsonrpc":"2.0","id":2,"method":"store/batchInsert","params":{"entity":"Note","keys":["n"],"rows":[[1],[2]]}}"#
        )
        // The rows, and what of the cycle holds them (its changes, the merged run).
        #expect(keptAtAnswer.count == 1 && keptAtAnswer[0] >= 1, "the rows were still held when the answer went out")
        #expect(server.contexts.graph?.deferredCount == 0, "and freed once it was written")
        #expect(try server.contexts.graph?.context("main").count(entity: "Note") == 2)
    }
}
