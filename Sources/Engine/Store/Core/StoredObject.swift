import Model
import Predicates

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An object as the store holds it: its values and the version its row is at.
public struct StoredObject: Equatable, Sendable {
    public var values: Snapshot
    public var version: Int64
    public init(values: Snapshot, version: Int64) {
        self.values = values
        self.version = version
    }
}

/// What a root save writes, in one transaction.
public struct StoreBatch: Sendable {
    /// Full snapshots of new objects (ids reserved with `reserveID`).
    public var inserts: [(ObjectID, Snapshot)] = []
    /// Full snapshots of changed objects; each row's version goes up by one.
    public var updates: [(ObjectID, Snapshot)] = []
    public var deletes: [ObjectID] = []
    /// The only keys the updates change (each update's other values are the stored ones),
    /// when the writer knows them: a store may then write just those. Nil: any key.
    public var updatedKeys: [String]? = nil
    /// Recorded with the transaction in the history (a context's `transactionAuthor`).
    public var author: String? = nil

    public init(
        inserts: [(ObjectID, Snapshot)] = [], updates: [(ObjectID, Snapshot)] = [], deletes: [ObjectID] = [],
        author: String? = nil
    ) {
        self.inserts = inserts
        self.updates = updates
        self.deletes = deletes
        self.author = author
    }

    public var isEmpty: Bool { inserts.isEmpty && updates.isEmpty && deletes.isEmpty }
}

extension EngineError.Kind {
    public static let storeClosed = Self("storeClosed")
}
