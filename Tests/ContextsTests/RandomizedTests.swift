import Model
import Store
import TestSupport
import Testing

@testable import Contexts

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Random operation sequences over a root and a child context, checked after every step
/// against a small in-test model of what each context must see, and against a mirror
/// built only from the delivered change sets. Seeded and deterministic; set
/// FETCHD_RANDOM_STEPS (and FETCHD_RANDOM_SEED) for longer runs.
@Suite struct RandomizedTests {
    static let model = ObjectModel(entities: [
        Entity(
            name: "Item", attributes: [Attribute(name: "name", type: .string), Attribute(name: "n", type: .integer)],
            relationships: [Relationship(name: "box", destination: "Box", toMany: false, inverse: "items")]),
        Entity(
            name: "Box", attributes: [Attribute(name: "label", type: .string)],
            relationships: [Relationship(name: "items", destination: "Item", toMany: true, inverse: "box")]),
    ])

    typealias SplitMix = SplitMix64

    /// Stored values of one object (no one-to-many side: that is derived).
    typealias Row = Snapshot

    struct Entry {
        var values: Row?
        var base: Row?
    }

    /// The reference: store rows, the root's and the child's pending changes.
    struct Reference {
        var store: [ObjectID: Row] = [:]
        var root: [ObjectID: Entry] = [:]
        var child: [ObjectID: Entry] = [:]
        var known: Set<ObjectID> = []

        func rootRow(_ id: ObjectID) -> Row? { root[id].map { $0.values } ?? store[id] }
        func childRow(_ id: ObjectID) -> Row? { child[id].map { $0.values } ?? rootRow(id) }
        func row(_ id: ObjectID, inChild: Bool) -> Row? { inChild ? childRow(id) : rootRow(id) }

        func view(_ id: ObjectID, inChild: Bool) -> Snapshot? {
            guard var s = row(id, inChild: inChild) else { return nil }
            if id.entity == "Box" {
                let members = known.filter { $0.entity == "Item" && row($0, inChild: inChild)?["box"] == .object(id) }
                s["items"] = .objects(members.sorted())
            }
            return s
        }

        func ids(_ entity: String, inChild: Bool) -> [ObjectID] {
            known.filter { $0.entity == entity && row($0, inChild: inChild) != nil }.sorted()
        }

        mutating func set(_ id: ObjectID, _ values: Row?, inChild: Bool, isNew: Bool = false) {
            var layer = inChild ? child : root
            if var e = layer[id] {
                e.values = values
                layer[id] = (e.base == nil && values == nil) || (e.base != nil && values == e.base) ? nil : e
            } else {
                let base = isNew ? nil : (inChild ? rootRow(id) : store[id])
                if base != values { layer[id] = Entry(values: values, base: base) }
            }
            if inChild { child = layer } else { root = layer }
        }

        mutating func pushChild() {
            for (id, e) in child.sorted(by: { $0.key < $1.key }) {
                if e.base == nil {
                    set(id, e.values, inChild: false, isNew: true)
                } else if e.values == nil {
                    if rootRow(id) != nil { set(id, nil, inChild: false) }
                } else if var merged = rootRow(id), let values = e.values, let base = e.base {
                    for (k, v) in values where base[k] != v { merged[k] = v }
                    set(id, merged, inChild: false)
                }
            }
            child.removeAll()
        }

        /// Whether a root save must fail validation (a reference to an object that is gone).
        /// Either side of such a reference is an unsaved change of the root.
        var rootSaveIsInvalid: Bool {
            known.contains { id in
                guard case .object(let b)? = rootRow(id)?["box"] else { return false }
                return rootRow(b) == nil && (root[id] != nil || root[b] != nil)
            }
        }

        mutating func saveRoot() {
            for (id, e) in root { store[id] = e.values }
            root.removeAll()
        }
    }

    @Test(arguments: [1, 2, 3]) func randomOperationsMatchTheReference(_ run: Int) throws {
        let steps = Int(getenv("FETCHD_RANDOM_STEPS").flatMap { Int(String(cString: $0)) } ?? 250)
        let seed = UInt64(getenv("FETCHD_RANDOM_SEED").flatMap { UInt64(String(cString: $0)) } ?? 42)
        var rng = SplitMix(seed: seed &* 1000 &+ UInt64(run))
        let graph = ObjectGraph(store: try SQLiteStore.open(model: Self.model))
        let root = try graph.context("main")
        let child = try graph.createContext("child", parent: "main")
        var ref = Reference()
        var mirrors: [String: [ObjectID: Snapshot]] = ["main": [:], "child": [:]]
        var mirrorErrors: [String] = []
        graph.observeChangeSets { set in
            for change in set.changes {
                if mirrors[set.context]?[change.id] != change.before {
                    mirrorErrors.append("\(set.context) \(change.id): before does not match the last reported value")
                }
                mirrors[set.context]?[change.id] = change.after
            }
        }

        for step in 0..<steps {
            let inChild = rng.below(2) == 1
            let c = inChild ? child : root
            var log = "step \(step) \(c.name): "
            switch rng.below(12) {
            case 0, 1:
                var values: Snapshot = ["name": .string("i\(rng.below(6))"), "n": .integer(Int64(rng.below(4)))]
                if rng.below(2) == 0, let b = rng.pick(ref.ids("Box", inChild: inChild)) { values["box"] = .object(b) }
                let id = try c.insert("Item", values)
                #expect(!ref.known.contains(id))
                ref.known.insert(id)
                var row = values
                if row["box"] == nil { row["box"] = .null }
                ref.set(id, row, inChild: inChild, isNew: true)
                log += "insert \(id)"
            case 2:
                let id = try c.insert("Box", ["label": .string("b\(rng.below(3))")])
                ref.known.insert(id)
                ref.set(
                    id, ["label": .string("b\(0)")].merging(["label": try c.object(id)!["label"]!]) { $1 },
                    inChild: inChild, isNew: true)
                log += "insert \(id)"
            case 3, 4, 5:
                guard let id = rng.pick(ref.ids("Item", inChild: inChild)), var row = ref.row(id, inChild: inChild)
                else { continue }
                var values: Snapshot = [:]
                if rng.below(2) == 0 { values["name"] = .string("i\(rng.below(6))") }
                if rng.below(2) == 0 { values["n"] = .integer(Int64(rng.below(4))) }
                if rng.below(2) == 0 {
                    values["box"] = rng.pick(ref.ids("Box", inChild: inChild)).map(Value.object) ?? .null
                }
                try c.update(id, values)
                for (k, v) in values { row[k] = v }
                ref.set(id, row, inChild: inChild)
                log += "update \(id) \(values)"
            case 6:
                guard let id = rng.pick(ref.ids("Item", inChild: inChild)) else { continue }
                try c.delete(id)
                ref.set(id, nil, inChild: inChild)
                log += "delete \(id)"
            case 7:
                guard let id = rng.pick(ref.ids("Box", inChild: inChild)) else { continue }
                try c.delete(id)
                // Nullify: the box's items lose it.
                for item in ref.ids("Item", inChild: inChild)
                where ref.row(item, inChild: inChild)?["box"] == .object(id) {
                    var row = ref.row(item, inChild: inChild)!
                    row["box"] = .null
                    ref.set(item, row, inChild: inChild)
                }
                ref.set(id, nil, inChild: inChild)
                log += "delete \(id)"
            case 8, 9:
                if inChild {
                    try child.save()
                    ref.pushChild()
                } else if ref.rootSaveIsInvalid {
                    #expect(engineError { try root.save() }?.kind == .validation, "\(log) save must fail")
                } else {
                    if let e = engineError({ try root.save() }) {
                        Issue.record("\(log) save failed: \(e.details)")
                        break
                    }
                    ref.saveRoot()
                }
                log += "save"
            case 10:
                try c.rollback()
                if inChild { ref.child.removeAll() } else { ref.root.removeAll() }
                log += "rollback"
            default:
                graph.processPendingChanges()
                log += "process"
            }
            graph.processPendingChanges()

            for (name, context) in [("main", root), ("child", child)] {
                let isChild = name == "child"
                for id in ref.known.sorted() {
                    let expected = ref.view(id, inChild: isChild)
                    let actual = try context.object(id)
                    #expect(actual == expected, "\(log): \(name) sees \(id) wrong")
                    #expect(mirrors[name]?[id] == expected, "\(log): \(name)'s change sets disagree on \(id)")
                }
                let items = ref.ids("Item", inChild: isChild)
                let byName = items.sorted {
                    let a = ref.row($0, inChild: isChild)!["name"]!
                    let b = ref.row($1, inChild: isChild)!["name"]!
                    let c = compareValues(a, b)
                    return c != 0 ? c < 0 : $0.number < $1.number
                }
                #expect(
                    try context.fetch(entity: "Item", ordering: ByAttribute(entity: "Item", key: "name")) == byName,
                    "\(log): \(name) fetch")
                let k = Value.integer(Int64(step % 4))
                #expect(
                    try context.count(entity: "Item", filter: Equals(entity: "Item", key: "n", value: k))
                        == items.filter { ref.row($0, inChild: isChild)!["n"] == k }.count, "\(log): \(name) count")
            }
            #expect(mirrorErrors.isEmpty, "\(log): \(mirrorErrors)")
            mirrorErrors.removeAll()
            if !mirrorErrors.isEmpty { break }
        }
        // Everything the root saved is in the store, as the reference says.
        for id in ref.known.sorted() {
            #expect(
                try graph.store.read(id).flatMap { root.stored($0.values, of: id.entity) } == ref.store[id],
                "store \(id) \(String(describing: try? graph.store.read(id))) vs \(String(describing: ref.store[id]))")
        }
    }
}

extension SplitMix64 {
    mutating func pick<T>(_ xs: [T]) -> T? { xs.isEmpty ? nil : xs[below(xs.count)] }
}
