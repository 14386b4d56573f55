import Model
import Store

/// The rows one mutation reads from the store. An update reads its object to know it
/// exists, again to remember what it replaces and again to note it for the change cycle;
/// each of those is a statement (on PostgreSQL a round trip). While a mutation runs
/// nothing writes, so the first answer stands for the rest of it; outside a mutation every
/// read goes to the store and sees other processes' commits.
struct HeldReads {
    private var rows: [ObjectID: StoredObject?]?

    /// Starts holding; false when an enclosing mutation already holds (it ends the hold).
    mutating func begin() -> Bool {
        guard rows == nil else { return false }
        rows = [:]
        return true
    }

    mutating func end() { rows = nil }

    mutating func read(_ id: ObjectID, from store: any Store) throws(EngineError) -> StoredObject? {
        guard rows != nil else { return try store.read(id) }
        if let held = rows![id] { return held }
        let row = try store.read(id)
        rows![id] = .some(row)
        return row
    }
}

extension Context {
    /// The saved row of `id` (through the hold while a mutation runs).
    func storedRow(_ id: ObjectID) throws(EngineError) -> StoredObject? {
        guard let graph else { return try store.read(id) }
        return try graph.heldReads.read(id, from: store)
    }

    /// Runs one mutation with its store reads held (see `HeldReads`).
    func holdingReads<T>(_ body: () throws(EngineError) -> T) throws(EngineError) -> T {
        guard let graph, graph.heldReads.begin() else { return try body() }
        defer { graph.heldReads.end() }
        return try body()
    }
}
