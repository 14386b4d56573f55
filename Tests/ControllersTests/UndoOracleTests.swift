import Contexts
import Model
import Predicates
import Store
import Testing

@testable import Controllers

/// Undo and redo against a model of the expected states: random edits, undos, redos, saves,
/// explicit groups, rollbacks and a child saving into main, on the real engine. After every
/// step main shows exactly the state the model expects (undo returns to the state before the
/// last group, redo to the one after it), and every controller's mirror, kept by the
/// notifications of those cycles, equals a fresh fetch.
@Suite struct UndoOracleTests {
    typealias State = [ObjectID: Snapshot]

    static func state(_ context: Context) throws -> State {
        var all: State = [:]
        for entity in ["Book", "Author"] {
            for id in try context.fetch(entity: entity) { all[id] = try context.object(id) }
        }
        return all
    }

    /// NSUndoManager's stacks over whole states.
    struct Model {
        var current: State
        var undo: [State] = []
        var redo: [State] = []
        var groupStart: State?
        mutating func edited(to next: State) {
            guard next != current else { return }
            redo.removeAll()
            if groupStart == nil { undo.append(current) }
            current = next
        }
        mutating func endGroup() {
            if let start = groupStart, start != current { undo.append(start) }
            groupStart = nil
        }
        mutating func undoOnce() {
            endGroup()
            guard let previous = undo.popLast() else { return }
            redo.append(current)
            current = previous
        }
        mutating func redoOnce() {
            endGroup()
            guard let next = redo.popLast() else { return }
            undo.append(current)
            current = next
        }
    }

    @Test(arguments: [UInt64(31), 32, 33])
    func randomEditsUndosAndRedosMatchTheModel(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        let store = try SQLiteStore.open(model: Library.model) { try SQLFunctions.register(on: $0) }
        let graph = ObjectGraph(store: store)
        let main = try graph.context(ObjectGraph.mainContext)
        let edit = try graph.createContext("edit", parent: ObjectGraph.mainContext)
        for _ in 0..<4 {
            _ = try main.insert(
                "Author", ["name": .string(Library.names[rng.int(0..<6)]), "rank": .integer(Int64(rng.int(0..<10)))])
        }
        let authors = try main.fetch(entity: "Author")
        for _ in 0..<20 { _ = try main.insert("Book", ContextOracleTests.bookValues(&rng, authors: authors)) }
        _ = try main.save()
        graph.processPendingChanges()
        main.enableUndo(levels: nil)

        let compiler = RequestCompiler(model: Library.model)
        let harnesses = try ContextOracleTests.specs.filter { $0.context != "other" }.map {
            try ContextOracleTests.Harness($0, graph, compiler)
        }
        graph.observeChangeSets { changeSet in
            for h in harnesses where h.context.name == changeSet.context {
                let events = h.controller.apply(changeSet)
                #expect(wireOrderProblems(events) == [], "seed \(seed) \(h.spec.name)")
                do { try h.mirror.apply(events) { h.context.snapshot(of: $0) } } catch {
                    Issue.record("seed \(seed) \(h.spec.name): \(error)")
                }
            }
        }
        var model = Model(current: try Self.state(main))
        var counts = (undos: 0, redos: 0, groups: 0)
        for step in 0..<iterations(default: 300) {
            let roll = rng.int(0..<100)
            switch roll {
            case 0..<45:
                for _ in 0..<rng.int(1..<4) { try? ContextOracleTests.mutate(main, &rng) }
                main.processPendingChanges()
                model.edited(to: try Self.state(main))
            case 45..<63:
                if model.groupStart != nil || !model.undo.isEmpty { counts.undos += 1 }
                try main.undo()
                model.undoOnce()
            case 63..<76:
                if !model.redo.isEmpty { counts.redos += 1 }
                try main.redo()
                model.redoOnce()
            case 76..<82:
                _ = try? main.save()
            case 82..<90:
                if model.groupStart == nil {
                    try main.beginUndoGrouping(actionName: "group \(step)")
                    model.groupStart = model.current
                    counts.groups += 1
                } else {
                    try main.endUndoGrouping()
                    model.endGroup()
                }
            case 90..<94:
                try main.rollback()
                model = Model(current: try Self.state(main))
            default:
                // A child's save is an edit of main, undoable there.
                for _ in 0..<rng.int(1..<3) { try? ContextOracleTests.mutate(edit, &rng) }
                _ = try? edit.save()
                main.processPendingChanges()
                model.edited(to: try Self.state(main))
            }
            graph.processPendingChanges()
            let context = "seed \(seed) step \(step) roll \(roll)"
            #expect(try Self.state(main) == model.current, "\(context): main differs from the model")
            #expect(try main.undoState().canRedo == !model.redo.isEmpty, "\(context)")
            for h in harnesses {
                #expect(h.mirror == (try h.fresh()), "\(context): \(h.spec.name)")
            }
            let actual = try Self.state(main)
            if actual != model.current {
                for id in Set(actual.keys).union(model.current.keys).sorted() where actual[id] != model.current[id] {
                    Issue.record(
                        "\(context): \(id) is \(String(describing: actual[id])), expected \(String(describing: model.current[id]))"
                    )
                }
                return
            }
        }
        #expect(counts.undos > 30 && counts.redos > 5 && counts.groups > 10, "\(counts)")
    }
}
