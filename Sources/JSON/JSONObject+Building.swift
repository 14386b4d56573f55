extension JSONObject {
    public mutating func reserveCapacity(_ n: Int) { entries.reserveCapacity(n) }

    /// Appends a key the caller knows is new (jansson's keys are unique), skipping the lookup.
    mutating func appendUnique(_ key: String, _ value: JSON) { entries.append((key, value)) }

    /// An object of entries the caller knows have unique keys, kept in their order.
    init(uniqueEntries: [(key: String, value: JSON)]) { entries = uniqueEntries }
}
