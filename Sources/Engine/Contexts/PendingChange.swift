import Model

/// One object a context changed and has not saved: its values now, and what its parent
/// showed when the context first touched it.
struct PendingChange {
    /// The object's values in this context; nil when this context deleted it.
    var values: Snapshot? { didSet { isEffective = values != base } }
    /// The parent's values at first touch; nil when this context inserted the object.
    var base: Snapshot? { didSet { isEffective = values != base } }
    /// The store row version the change is based on (optimistic locking); nil for inserts.
    var baseVersion: Int64?
    /// Whether saving it changes anything (an update back to the original values does not).
    /// Kept as the values change: a save asks it of every entry more than once, and each
    /// answer would compare two whole rows key by key.
    private(set) var isEffective: Bool

    init(values: Snapshot?, base: Snapshot?, baseVersion: Int64?) {
        self.values = values
        self.base = base
        self.baseVersion = baseVersion
        isEffective = values != base
    }

    var isInsert: Bool { base == nil }
    var isDelete: Bool { values == nil && base != nil }

    /// Keys whose value differs from the base (every key of an insert).
    var changedKeys: [String] {
        guard let values else { return [] }
        guard let base else { return values.keys.sorted() }
        return values.keys.filter { values[$0] != base[$0] }.sorted()
    }
}

/// Keys whose values differ between two snapshots (all keys when one side is missing).
func differingKeys(_ a: Snapshot?, _ b: Snapshot?) -> Set<String> {
    var keys = DifferingKeys()
    return keys(a, b)
}

/// `differingKeys` for the objects of one cycle: a set equal to the one before shares its
/// storage, so a batch of a million inserts (or of updates to one key) builds one set, not a
/// million.
struct DifferingKeys {
    private var last: Set<String> = []
    /// The keys `last` was last asked for, in the order given: the objects of one entity
    /// list them alike, so most answers are found equal without hashing.
    private var lastList: [String] = []

    mutating func callAsFunction(_ a: Snapshot?, _ b: Snapshot?) -> Set<String> {
        switch (a, b) {
        case (nil, nil): return []
        case (let x?, nil), (nil, let x?): return shared(x.keys, count: x.count)
        case (let x?, let y?):
            var keys: [String] = []
            // A snapshot and its edited copy list their keys in the same order: then the
            // values compare pairwise, with no hashing; any other pair is looked up.
            if x.count == y.count, sameKeyOrder(x, y) {
                for (a, b) in zip(x, y) where a.value != b.value { keys.append(a.key) }
            } else {
                for (k, v) in x where y[k] != v { keys.append(k) }
                for k in y.keys where x[k] == nil { keys.append(k) }
            }
            return shared(keys, count: keys.count)
        }
    }

    /// The keys of `candidates` whose values differ, where no other key can (a row and its
    /// copy with those keys set): a look-up per candidate instead of a walk of both rows.
    mutating func callAsFunction(_ a: Snapshot, _ b: Snapshot, among candidates: [String]) -> Set<String> {
        var keys: [String] = []
        for k in candidates where a[k] != b[k] { keys.append(k) }
        return shared(keys, count: keys.count)
    }

    private func sameKeyOrder(_ x: Snapshot, _ y: Snapshot) -> Bool {
        zip(x.keys, y.keys).allSatisfy { $0 == $1 }
    }

    /// `keys` (distinct) as a set, the previous one when equal.
    private mutating func shared<C: Collection<String>>(_ keys: C, count: Int) -> Set<String> {
        if count == lastList.count && keys.elementsEqual(lastList) { return last }
        lastList = Array(keys)
        if count == last.count && keys.allSatisfy(last.contains) { return last }
        last = Set(keys)
        return last
    }
}
