import JSON
import Model

/// The `values` member of `controller/didChange` (protocol.md §10.8): per id, its values
/// for the controller's columns, as bytes written while the cycle's values are at hand.
enum DifferenceValues {
    typealias Column = (name: String, absent: Value)

    /// From how many ids out of id order the rows are read in id order: below it the sort
    /// costs more than the look-ups it saves.
    static let idOrderFrom = 1024

    /// `[[...],...]`: each id's values for `columns` in that order, null for an object the
    /// context no longer has.
    static func bytes(of ids: [ObjectID], _ columns: [Column], _ values: CycleValues) -> [UInt8] {
        var out = JSONWriter(capacity: 2 + ids.count * (2 + 12 * columns.count))
        out.bytes.append(UInt8(ascii: "["))
        var cursor = 0
        if isAscending(ids) {
            for (i, id) in ids.enumerated() {
                if i > 0 { out.bytes.append(UInt8(ascii: ",")) }
                values.withSnapshot(id, cursor: &cursor) { row($0, columns, &out) }
            }
        } else if ids.count >= idOrderFrom, let order = idOrder(ids) {
            // A controller's order visits the change set at random (a binary search and
            // cache misses a row); in id order it is walked once, with the snapshots, which
            // lie in memory in about that order. Each row's bytes are then copied out in the
            // controller's order.
            var rows = JSONWriter(capacity: out.bytes.capacity)
            var spans = [Range<Int>](repeating: 0..<0, count: ids.count)
            for i in order {
                let start = rows.bytes.count
                values.withSnapshot(ids[i], cursor: &cursor) { row($0, columns, &rows) }
                spans[i] = start..<rows.bytes.count
            }
            rows.bytes.withUnsafeBufferPointer { all in
                for (i, span) in spans.enumerated() {
                    if i > 0 { out.bytes.append(UInt8(ascii: ",")) }
                    out.bytes.append(contentsOf: UnsafeBufferPointer(rebasing: all[span]))
                }
            }
        } else {
            for (i, id) in ids.enumerated() {
                if i > 0 { out.bytes.append(UInt8(ascii: ",")) }
                values.withSnapshot(id) { row($0, columns, &out) }
            }
        }
        out.bytes.append(UInt8(ascii: "]"))
        return out.bytes
    }

    static func isAscending(_ ids: [ObjectID]) -> Bool {
        zip(ids, ids.dropFirst()).allSatisfy { $0 < $1 }
    }

    /// The positions of `ids` in ascending id order; nil when they are not all of one entity
    /// with numbers a sort key can hold.
    static func idOrder(_ ids: [ObjectID]) -> [Int]? {
        guard let entity = ids.first?.entity, ids.count < 1 << positionBits else { return nil }
        var low = Int64.max
        var high = Int64.min
        for id in ids {
            guard id.entity == entity, id.number >= 0, id.number < 1 << (64 - positionBits) else { return nil }
            low = min(low, id.number)
            high = max(high, id.number)
        }
        // Numbers from a few id blocks (a batch insert's, the rows of a table): one slot per
        // number in their range, read in order, instead of a sort (200k ids: 16 ms).
        if high - low < 4 * Int64(ids.count), let order = denseOrder(ids, from: low, through: high) { return order }
        // One integer per id, its number above its position: a sort of plain integers.
        var keys = ids.enumerated().map { UInt64($0.element.number) << positionBits | UInt64($0.offset) }
        keys.sort()
        return keys.map { Int($0 & (1 << positionBits - 1)) }
    }

    /// `idOrder` through a slot per number from `low` through `high`; nil when a number
    /// comes twice (the sort keeps both).
    private static func denseOrder(_ ids: [ObjectID], from low: Int64, through high: Int64) -> [Int]? {
        var slots = [Int32](repeating: -1, count: Int(high - low) + 1)
        for (i, id) in ids.enumerated() {
            let slot = Int(id.number - low)
            guard slots[slot] < 0 else { return nil }
            slots[slot] = Int32(i)
        }
        var order: [Int] = []
        order.reserveCapacity(ids.count)
        for position in slots where position >= 0 { order.append(Int(position)) }
        return order
    }

    private static let positionBits = 22

    /// One object's values, `[...]`, or null.
    private static func row(_ snapshot: Snapshot?, _ columns: [Column], _ out: inout JSONWriter) {
        guard let snapshot else { return out.writeRaw("null") }
        out.bytes.append(UInt8(ascii: "["))
        for (j, column) in columns.enumerated() {
            if j > 0 { out.bytes.append(UInt8(ascii: ",")) }
            ControllerDifference.write(snapshot[column.name] ?? column.absent, to: &out)
        }
        out.bytes.append(UInt8(ascii: "]"))
    }
}
