/// The shared schemas of the OpenRPC document (`components.schemas`), in document order.
/// Methods and notifications refer to them with `Schema.ref(name)`.
public enum Components {
    public static let all: [(String, Schema)] = [
        ("FetchRequest", fetchRequest),
        ("SortDescriptor", sortDescriptor),
        ("SectionInfo", sectionInfo),
        ("Object", object),
        ("ObjectID", Schema.string.describe("An object id, \"Entity/N\" (protocol.md §4).")),
        ("Model", model),
        ("Entity", entity),
        ("Attribute", attribute),
        ("Relationship", relationship),
        ("IndexPath", Schema.array(.integer).describe("[section, row]: exactly two integers.")),
        ("ObjectChangeType", Schema.strings(["insert", "delete", "move", "update"])),
        ("SectionChangeType", Schema.strings(["insert", "delete"])),
        ("ErrorData", errorData),
        ("HistoryTransaction", HistoryWire.schema),
    ]

    static let fetchRequest = Schema.object(
        [
            ("entity", .string),
            ("predicate", Schema.string.describe("NSPredicate format syntax (protocol.md §7).")),
            ("variables", Schema.object([], additional: .any).describe("Values of $variables; an array is a list.")),
            ("sortDescriptors", .array(.ref("SortDescriptor"))),
            ("fetchLimit", Schema.integer.describe("0 or absent: no limit.")),
            ("fetchOffset", .integer),
            ("fetchBatchSize", Schema.integer.describe("Accepted and ignored.")),
        ], required: ["entity"], closed: true)

    static let sortDescriptor = Schema.object(
        [
            ("key", .string),
            ("ascending", .boolean),
            ("comparator", .strings(["compare", "caseInsensitiveCompare", "localizedStandardCompare"])),
        ], required: ["key"], closed: true)

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
