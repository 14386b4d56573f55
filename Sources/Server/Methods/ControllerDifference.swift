import Controllers
import JSON
import JSONRPC
import Model

/// `controller/didChange`: a whole change cycle of a controller created with
/// `notify: {mode: "difference"}`, in one message (protocol.md §10.8). It carries what the
/// per-row stream carries, with the same OLD/NEW positions, but consecutive rows as runs and
/// object values as columns, so a cycle of a million inserts is one run and a column of ids.
/// It writes its own bytes (`EncodedParams`): a JSON tree of a million ids and value rows
/// cost more to build, walk and free than the rows cost to write.
public struct ControllerDifference: NotificationPayload, EncodedParams {
    static let run = Schema.array(.integer).describe(
        "[section, row, count]: count consecutive rows from [section, row].")
    public static let params: [ParamSpec] = [
        controllerParam.spec,
        .required(
            "sections",
            .object(
                [
                    ("deleted", .array(.integer).describe("OLD indexes, highest first.")),
                    (
                        "inserted",
                        .array(
                            .object(
                                [("index", .integer), ("section", .ref("SectionInfo"))],
                                required: ["index", "section"], closed: true)
                        ).describe("NEW indexes, lowest first.")
                    ),
                ], required: ["deleted", "inserted"], closed: true),
            "Sections deleted and inserted."),
        .required("deleted", .array(run), "Runs of deleted OLD rows, highest first."),
        .required("inserted", .array(run), "Runs of inserted NEW rows, lowest first."),
        .required(
            "moved", .array(.array(.integer)), "[oldSection, oldRow, newSection, newRow] per move, by NEW position."),
        .required("updated", .array(run), "Runs of updated rows at their NEW positions, lowest first."),
        .required(
            "ids", .array(.ref("ObjectID")), "One per row of inserted, then moved, then updated, in the order listed."),
        .optional("keys", .array(.string), "The value columns (absent with {objects: false})."),
        .optional(
            "values", .array(.array(.any)),
            "One array per id: its values for keys, in that order (absent with {objects: false})."),
    ]

    private let label: ControllerLabel
    private let parts: Parts
    private let ids: [ObjectID]
    /// The value columns; nil with `objects: false`.
    private let columns: [(name: String, absent: Value)]?
    /// The `values` member's bytes (`[[...],...]`, null for an object the context no longer
    /// has), written when the cycle is sent: each object's values are read once, while they
    /// are at hand, and nothing holds its snapshot until the message is written.
    private let values: [UInt8]

    /// Groups the cycle's events (wire order, §10.6) and reads each reported object once.
    init(_ events: [ControllerEvent], of entry: ControllersState.Entry, values shared: CycleValues) {
        var parts = Parts()
        var insertedIDs: [ObjectID] = []
        var movedIDs: [ObjectID] = []
        var updatedIDs: [ObjectID] = []
        for event in events {
            switch event {
            case .willChangeContent, .didChangeContent: break
            case .section(.delete, let index, _): parts.sectionsDeleted.append(.integer(Int64(index)))
            case .section(.insert, let index, let info): parts.insertSection(index, info)
            case .object(let type, let id, let old, let new):
                switch type {
                case .delete: if let old { parts.deleted.add(old, descending: true) }
                case .insert:
                    if let new { parts.inserted.add(new, descending: false) }
                    insertedIDs.append(id)
                case .update:
                    if let new { parts.updated.add(new, descending: false) }
                    updatedIDs.append(id)
                case .move:
                    if let old, let new {
                        parts.moved.append((old.section, old.row, new.section, new.row))
                    }
                    movedIDs.append(id)
                }
            }
        }
        self.init(parts, ids: insertedIDs + movedIDs + updatedIDs, of: entry, values: shared)
    }

    /// A fill of a controller that held nothing, straight from its rows: what the events of
    /// `fill.events` give, one run per section, without a million events in between.
    init(_ fill: ControllerFill, of entry: ControllersState.Entry, values shared: CycleValues) {
        var parts = Parts()
        var ids: [ObjectID] = []
        ids.reserveCapacity(fill.sections.reduce(0) { $0 + $1.numbers.count })
        for (i, section) in fill.sections.enumerated() {
            if fill.sectioned { parts.insertSection(i, section.info) }
            if !section.numbers.isEmpty { parts.inserted.runs.append((i, 0, section.numbers.count)) }
            ids += section.numbers.lazy.map { ObjectID(entity: fill.entity, number: $0) }
        }
        self.init(parts, ids: ids, of: entry, values: shared)
    }

    /// Everything but the ids and values, as the events list it.
    struct Parts {
        var sectionsDeleted: [JSON] = []
        var sectionsInserted: [JSON] = []
        var deleted = Runs()
        var inserted = Runs()
        var updated = Runs()
        /// (oldSection, oldRow, newSection, newRow): written as they are, a JSON array each
        /// only for `json` (a cycle of 10k moves made and freed 10k of them).
        var moved: [(Int, Int, Int, Int)] = []

        var movedJSON: JSON {
            .array(moved.map { .array([$0.0, $0.1, $0.2, $0.3].map { .integer(Int64($0)) }) })
        }

        var sectionsJSON: JSON {
            .object(["deleted": .array(sectionsDeleted), "inserted": .array(sectionsInserted)])
        }

        mutating func insertSection(_ index: Int, _ info: SectionInfo) {
            sectionsInserted.append(
                .object(["index": .integer(Int64(index)), "section": ControllerWire.section(info)]))
        }
    }

    private init(_ parts: Parts, ids: [ObjectID], of entry: ControllersState.Entry, values shared: CycleValues) {
        label = entry.label
        self.parts = parts
        self.ids = ids
        let columns = Self.columns(entry)
        self.columns = columns
        values = columns.map { DifferenceValues.bytes(of: ids, $0, shared) } ?? []
    }

    public var json: JSON {
        var o: JSONObject = [
            "controller": .string(label.name), "sections": parts.sectionsJSON,
            "deleted": parts.deleted.json, "inserted": parts.inserted.json, "moved": parts.movedJSON,
            "updated": parts.updated.json, "ids": .array(ids.map { .string($0.description) }),
        ]
        if let columns {
            o["keys"] = .array(columns.map { .string($0.name) })
            // fetchd's own bytes: they parse (the value a test or the MCP face reads).
            o["values"] = (try? JSON.parse(values)) ?? .null
        }
        return .object(o)
    }

    /// The bytes of `json`, member for member: ids of the controller's entity from its
    /// encoded prefix, integers and strings without a JSON value in between.
    public func write(to writer: inout JSONWriter) {
        // Bytes one at a time per row: a buffer append costs more than the byte.
        let comma = UInt8(ascii: ",")
        writer.writeRaw("{\"controller\":")
        writer.write(string: label.name)
        writer.writeRaw(",\"sections\":")
        writer.write(parts.sectionsJSON)
        writer.writeRaw(",\"deleted\":")
        writer.write(parts.deleted.json)
        writer.writeRaw(",\"inserted\":")
        writer.write(parts.inserted.json)
        writer.writeRaw(",\"moved\":[")
        for (i, m) in parts.moved.enumerated() {
            writer.writeRaw(i == 0 ? "[" : ",[")
            writer.write(integer: Int64(m.0))
            writer.bytes.append(comma)
            writer.write(integer: Int64(m.1))
            writer.bytes.append(comma)
            writer.write(integer: Int64(m.2))
            writer.bytes.append(comma)
            writer.write(integer: Int64(m.3))
            writer.bytes.append(UInt8(ascii: "]"))
        }
        writer.writeRaw("]")
        writer.writeRaw(",\"updated\":")
        writer.write(parts.updated.json)
        writer.bytes.reserveCapacity(writer.bytes.count + ids.count * (label.idPrefix.count + 24))
        writer.writeRaw(",\"ids\":[")
        for (i, id) in ids.enumerated() {
            if i > 0 { writer.bytes.append(comma) }
            if id.entity == label.entity {
                writer.bytes += label.idPrefix
                writer.write(integer: id.number)
                writer.bytes.append(UInt8(ascii: "\""))
            } else {
                writer.write(id: id)
            }
        }
        writer.writeRaw("]")
        if let columns {
            writer.writeRaw(",\"keys\":")
            writer.write(.array(columns.map { .string($0.name) }))
            writer.writeRaw(",\"values\":")
            writer.bytes += values
        }
        writer.writeRaw("}")
    }

    /// `WireValue.json(value)`'s bytes; the common scalars straight from the value.
    static func write(_ value: Value, to writer: inout JSONWriter) {
        switch value {
        case .null: writer.writeRaw("null")
        case .integer(let i): writer.write(integer: i)
        case .string(let s): writer.write(string: s)
        default: writer.write(WireValue.json(value))
        }
    }

    /// The keys the projection carries, in model order (as WireObject writes them), and what
    /// a snapshot that lacks one stands for; nil for ids only.
    static func columns(_ entry: ControllersState.Entry) -> [(name: String, absent: Value)]? {
        let keys: Set<String>?
        switch entry.projection {
        case .idsOnly: return nil
        case .allValues: keys = nil
        case .keys(let k): keys = k
        }
        return entry.entity.attributes.filter { keys?.contains($0.name) ?? true }.map { ($0.name, Value.null) }
            + entry.entity.relationships.filter { keys?.contains($0.name) ?? true }.map {
                ($0.name, $0.toMany ? Value.objects([]) : Value.null)
            }
    }

    /// Index paths in the order the events list them, joined into `[section, row, count]` runs
    /// of consecutive rows; `row` is the run's lowest row either way.
    struct Runs {
        var runs: [(section: Int, row: Int, count: Int)] = []

        mutating func add(_ path: IndexPath, descending: Bool) {
            if let last = runs.last, last.section == path.section {
                if descending, path.row == last.row - 1 {
                    runs[runs.count - 1] = (last.section, path.row, last.count + 1)
                    return
                }
                if !descending, path.row == last.row + last.count {
                    runs[runs.count - 1].count += 1
                    return
                }
            }
            runs.append((path.section, path.row, 1))
        }

        var json: JSON {
            .array(
                runs.map { .array([.integer(Int64($0.section)), .integer(Int64($0.row)), .integer(Int64($0.count))]) })
        }
    }
}
