import Model
import SQLite
import Store
import TestSupport
import Testing

@testable import Contexts

/// The graph's observer list (ObserverList.swift, GraphObserver.swift): registration order,
/// changes to the list during a delivery, what each call carries and when.
@Suite struct GraphObserverTests {
    /// Logs what it hears as "name:event" into a shared log; `onChange` runs after logging.
    final class Logger: GraphObserver {
        let name: String
        let log: Log
        var onChange: ((ChangeSet) -> Void)?
        init(_ name: String, _ log: Log) {
            self.name = name
            self.log = log
        }
        func graph(_ graph: ObjectGraph, didChange changeSet: ChangeSet) {
            log.lines.append("\(name):\(changeSet.context)")
            onChange?(changeSet)
        }
        func graph(_ graph: ObjectGraph, didMergeExternally merge: ObjectGraph.ExternalMerge) {
            log.lines.append("\(name):merge \(merge.transactions.count)")
        }
        func graph(_ graph: ObjectGraph, didClose context: Context) {
            log.lines.append("\(name):closed \(context.name)")
        }
    }

    final class Log {
        var lines: [String] = []
        func take() -> [String] {
            defer { lines.removeAll() }
            return lines
        }
    }

    private func graph() throws -> ObjectGraph {
        ObjectGraph(store: try SQLiteStore.open(model: Fixture.model))
    }

    private func touch(_ context: Context, _ title: String) throws {
        _ = try context.insert("Group", ["title": .string(title)])
    }

    @Test func everyObserverHearsEachChangeSetInRegistrationOrder() throws {
        let graph = try graph()
        _ = try graph.createContext("child", parent: "main")
        let log = Log()
        let a = Logger("a", log)
        let b = Logger("b", log)
        let c = Logger("c", log)
        graph.addObserver(b)
        graph.addObserver(a)
        graph.addObserver(c)
        // A second add changes nothing: b stays first and hears each set once.
        graph.addObserver(b)
        try touch(try graph.context("main"), "one")
        graph.processPendingChanges()
        // Each set goes to every observer before the next set (main's, then its child's).
        #expect(log.take() == ["b:main", "a:main", "c:main", "b:child", "a:child", "c:child"])

        graph.removeObserver(a)
        // Removing one that is not on the list changes nothing.
        graph.removeObserver(Logger("x", log))
        try touch(try graph.context("child"), "two")
        graph.processPendingChanges()
        #expect(log.take() == ["b:child", "c:child"])
        // Added again, it goes last.
        graph.addObserver(a)
        try touch(try graph.context("child"), "three")
        graph.processPendingChanges()
        #expect(log.take() == ["b:child", "c:child", "a:child"])
    }

    @Test func changesToTheListDuringADeliveryTakeEffectAtOnceForRemovalsAndNextTimeForAdditions() throws {
        let graph = try graph()
        _ = try graph.createContext("child", parent: "main")
        let log = Log()
        let a = Logger("a", log)
        let b = Logger("b", log)
        let c = Logger("c", log)
        let d = Logger("d", log)
        let late = Logger("late", log)
        for o in [a, b, c, d] { graph.addObserver(o) }
        // a, on the first set: takes b off (b has not heard it yet), adds `late`, and takes
        // d off and adds it again (a new registration, at the end).
        a.onChange = { [unowned graph] _ in
            a.onChange = nil
            graph.removeObserver(b)
            graph.addObserver(late)
            graph.removeObserver(d)
            graph.addObserver(d)
        }
        // c takes itself off once it heard main's set.
        c.onChange = { [unowned graph, unowned c] set in
            if set.context == "main" { graph.removeObserver(c) }
        }
        try touch(try graph.context("main"), "one")
        graph.processPendingChanges()
        // main's set: b, removed before its turn, hears nothing; c hears it and leaves; `late`
        // and d, added during it, hear from the next set on (the child's, in the same
        // processPendingChanges).
        #expect(log.take() == ["a:main", "c:main", "a:child", "late:child", "d:child"])
        #expect(graph.observers.all.map { ($0 as? Logger)?.name } == ["a", "late", "d"])
    }

    @Test func anExternalMergeIsAnnouncedOnceItsChangeSetsWentOut() throws {
        let dir = TempDir()
        let file = dir.file("o.sqlite")
        let reader = ObjectGraph(store: try SQLiteStore.open(path: file, model: Fixture.model))
        let writer = ObjectGraph(store: try SQLiteStore.open(path: file, model: Fixture.model))
        _ = try reader.createContext("child", parent: "main")
        let log = Log()
        reader.addObserver(Logger("a", log))
        reader.addObserver(Logger("b", log))
        let other = try writer.context("main")
        try touch(other, "one")
        try other.save()
        try touch(other, "two")
        try other.save()
        #expect(try reader.mergeExternalChanges().count == 2)
        #expect(log.take() == ["a:main", "b:main", "a:child", "b:child", "a:merge 2", "b:merge 2"])
        // A merge that merged nothing is not announced.
        #expect(try reader.mergeExternalChanges().isEmpty)
        #expect(log.take() == [])
    }

    @Test func closingAContextAnnouncesItsDescendantsFirst() throws {
        let graph = try graph()
        _ = try graph.createContext("child", parent: "main")
        _ = try graph.createContext("grandchild", parent: "child")
        _ = try graph.createContext("sibling", parent: "main")
        let log = Log()
        graph.addObserver(Logger("a", log))
        try graph.closeContext("child")
        #expect(log.take() == ["a:closed grandchild", "a:closed child"])
        #expect(graph.contexts.map(\.name) == ["main", "sibling"])
    }

    @Test func closingTheGraphClosesEveryContextThenLetsGoOfItsObservers() throws {
        let graph = try graph()
        _ = try graph.createContext("child", parent: "main")
        _ = try graph.createContext("other")
        let log = Log()
        weak var gone: Logger?
        do {
            let a = Logger("a", log)
            gone = a
            graph.addObserver(a)
        }
        #expect(gone != nil)
        graph.close()
        #expect(log.take() == ["a:closed other", "a:closed child", "a:closed main"])
        #expect(gone == nil)
        #expect(graph.observers.isEmpty)
    }
}
