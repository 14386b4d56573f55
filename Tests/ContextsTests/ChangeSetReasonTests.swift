import Model
import Testing

@testable import Contexts

/// Every change set says why its cycle happened, in the context that had it and its children.
@Suite struct ChangeSetReasonTests {
    func reasons(_ recorder: Recorder) -> [String] { recorder.take().map { "\($0.context):\($0.reason.rawValue)" } }

    @Test func eachWayACycleHappensHasItsReason() throws {
        let (graph, recorder) = try Fixture.graph()
        let main = try graph.context("main")
        let child = try graph.createContext("child", parent: "main")
        let other = try graph.createContext("other")

        _ = try child.insert("Group", ["title": .string("A")])
        graph.processPendingChanges()
        #expect(reasons(recorder) == ["child:request"])

        try child.save()
        #expect(reasons(recorder) == ["main:save"])

        try main.save()
        #expect(reasons(recorder) == ["other:merge"])

        try other.update(.group(1), ["title": .string("B")])
        other.processPendingChanges()
        #expect(reasons(recorder) == ["other:request"])

        try other.rollback()
        #expect(reasons(recorder) == ["other:rollback"])

        try main.update(.group(1), ["title": .string("C")])
        try main.save()
        // The request's own changes end their cycle first; the save then changes nothing here,
        // while the merging root and main's child see the saved value.
        #expect(reasons(recorder) == ["main:request", "child:request", "other:merge"])
    }
}
