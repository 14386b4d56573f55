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
    /// What the history keeps of each update's row, read with the rows under the write lock
    /// (`Store.readNumbered(entity:numbers:keepingHistoryOf:)`), index by index with
    /// `updates`: the store may write the history rows from it instead of reading each row
    /// again. Nil: the store reads what it records.
    public var priorHistory: PriorHistory? = nil

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

/// What the history records of rows an update is about to change, read with the rows (by a
/// store whose history keeps old values as text, SQLite): per row its version, its `old`
/// text exactly as the history writes it, and the stored values of the columns the update
/// sets, untyped (`ValueEncoding.untyped`: each binds back as the value stored, so the
/// history's list of changed keys compares exactly what comparing the row would).
public struct PriorHistory: Sendable {
    public let entity: String
    /// The columns kept per row, in the table's order.
    public let columns: [String]
    public private(set) var versions: [Int64] = []
    public private(set) var old: [String] = []
    /// `columns.count` values per row, flat.
    public private(set) var stored: [Value] = []

    public init(entity: String, columns: [String], capacity: Int = 0) {
        self.entity = entity
        self.columns = columns
        versions.reserveCapacity(capacity)
        old.reserveCapacity(capacity)
        stored.reserveCapacity(capacity * columns.count)
    }

    public var count: Int { versions.count }

    public mutating func append(version: Int64, old text: String, stored values: some Sequence<Value>) {
        versions.append(version)
        old.append(text)
        stored.append(contentsOf: values)
    }

    /// The stored value of column `j` of row `i`.
    public func stored(_ i: Int, _ j: Int) -> Value { stored[i * columns.count + j] }

    /// The rows at `indices`, in that order.
    public func rows(_ indices: [Int]) -> PriorHistory {
        var out = PriorHistory(entity: entity, columns: columns, capacity: indices.count)
        for i in indices {
            out.append(version: versions[i], old: old[i], stored: stored[i * columns.count..<(i + 1) * columns.count])
        }
        return out
    }
}

extension EngineError.Kind {
    public static let storeClosed = Self("storeClosed")
}
