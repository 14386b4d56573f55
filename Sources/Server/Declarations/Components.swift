import Model

/// The shared schemas of the OpenRPC document (`components.schemas`), in document order.
/// Methods and notifications refer to them with `Schema.ref(name)`.
public enum Components {
    public static let all: [(String, Schema)] = [
        ("FetchRequest", fetchRequest),
        ("SortDescriptor", sortDescriptor),
        ("SectionInfo", sectionInfo),
        ("Object", object),
        ("ObjectID", objectID),
        ("Model", model),
        ("Entity", entity),
        ("Attribute", attribute),
        ("Relationship", relationship),
        ("IndexPath", indexPath),
        ("ObjectChangeType", Schema.strings(["insert", "delete", "move", "update"])),
        ("SectionChangeType", Schema.strings(["insert", "delete"])),
        ("ErrorData", errorData),
        ("HistoryTransaction", HistoryWire.schema),
    ]

    /// A component by name, for `$ref`.
    static func schema(_ name: String) -> Schema {
        guard let schema = byName[name] else { preconditionFailure("no component \(name)") }
        return schema
    }

    private static let byName = Dictionary(uniqueKeysWithValues: all.map { ($0.0, $0.1) })

    /// A negative section or row is the engine's invalidValue, as one out of range.
    static let indexPath = Schema.array(Schema.integer.minimum(0, checkedBy: .engine)).count(2)
        .describe("[section, row]: exactly two integers.")

    static let fetchRequest = FetchRequestWire.schema
    static let sortDescriptor = FetchRequestWire.sortDescriptor

    /// The pattern allows up to 18 digits, which every id fits; fetchd reads any N that fits
    /// in 64 bits.
    static let objectID = Schema.string.pattern(#"^.+/0*[1-9][0-9]{0,17}$"#, #"id "Entity/N""#) {
        ObjectID.isWellFormed($0)
    }
    .describe("An object id, \"Entity/N\" (protocol.md §4).")

    static let sectionInfo = Schema.object(
        [
            ("name", .string), ("indexTitle", .string), ("numberOfObjects", .integer),
        ], required: ["name", "indexTitle", "numberOfObjects"], closed: true)

    static let object = Schema.object([("id", .ref("ObjectID"))], required: ["id"], additional: .any)
        .describe("An object: its id, then its values in model order (protocol.md §4).")

    static let model = Schema.object([("entities", .array(.ref("Entity")))], required: ["entities"], closed: true)

    static let entity = Schema.object(
        [
            ("name", .string),
            ("attributes", Schema.object([], additional: .ref("Attribute"))),
            ("relationships", Schema.object([], additional: .ref("Relationship"))),
        ], required: ["name"], closed: true)

    static let attribute = Schema.object(
        [
            ("type", .strings(["string", "integer", "double", "boolean", "date", "binary", "uuid"])),
            ("optional", .boolean),
            ("default", Schema.any.describe("A value of the type, written as on the wire.")),
            ("indexed", .boolean),
        ], required: ["type"], closed: true)

    static let relationship = Schema.object(
        [
            ("destination", .string),
            ("toMany", .boolean),
            ("inverse", .string),
            ("deleteRule", .strings(["nullify", "cascade", "deny", "noAction"])),
            ("optional", .boolean),
        ], required: ["destination", "inverse"], closed: true)

    static let errorData = Schema.object([("kind", .string)], required: ["kind"], additional: .any)
        .describe("`data` of every error: a stable kind, then details in a fixed order (protocol.md §3).")
}
