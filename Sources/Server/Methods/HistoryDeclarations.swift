import Contexts
import JSON
import JSONRPC
import Model
import Store

/// Other processes' commits and the change history (protocol.md §5, "Other processes on
/// the file").
public enum HistoryDeclarations {
    static let storeErrors: [ErrorKind] = [.invalidParams, .engine(.noStore), .engine(.storeError)]

    public static let checkExternalChanges = MethodDeclaration<NoParams, CheckExternalResult>(
        "store/checkExternalChanges",
        "Merges now what other processes committed since the last merge; their notifications come first.",
        errors: storeErrors)
    public static let historyToken = MethodDeclaration<NoParams, Single<TokenMember>>(
        "store/historyToken", "The newest history token: where a reader that has everything up to now starts.",
        errors: storeErrors)
    public static let history = MethodDeclaration<HistoryParams, HistoryResult>(
        "store/history", "Committed transactions after a token, oldest first.",
        errors: storeErrors + [.engine(.unknownEntity)])
    public static let purgeHistory = MethodDeclaration<PurgeHistoryParams, Single<DeletedMember>>(
        "store/purgeHistory", "Deletes the history before a token (the newest row always stays).",
        errors: storeErrors + [.engine(.storeBusy)])

    public static let didChangeExternally = ServerNotification<ExternalChange>(
        "store/didChangeExternally", "Other processes' transactions were merged (once per merge, after its cycles).")
    public static let notifications = [didChangeExternally.description]
}

public enum TokenMember: SingleMember {
    public static let member = "token"
    public static let memberSchema = Schema.integer
}

public enum DeletedMember: SingleMember {
    public static let member = "deleted"
    public static let memberSchema = Schema.integer
}

public struct CheckExternalResult: RPCResult {
    public static let resultName = "merged"
    public static let schema = Schema.object(
        [("merged", .integer), ("token", .integer)],
        required: ["merged", "token"], closed: true)
    let merged: Int
    let token: Int64
    public var json: JSON { .object(["merged": .integer(Int64(merged)), "token": .integer(token)]) }
}

public struct HistoryParams: RPCParams {
    static let after = Param<Int64>.required("after", .integer, "A token: transactions after it (0: from the start).")
    static let limit = Param<Int?>.optional("limit", .integer, "At most this many transactions (100 by default).")
    static let authors = Param<[String]?>.optional(
        "authors", .array(.string), "Only transactions of these transaction authors.")
    static let entities = Param<[String]?>.optional(
        "entities", .array(.string), "Only changes of these entities (transactions without any are left out).")
    public static let params = ParamSpec.list(after, limit, authors, entities)
    let graph: ObjectGraph
    let after: Int64
    let limit: Int
    let authors: Set<String>?
    let entities: Set<String>?

    public init(params p: ParamReader, in scope: ParamScope) throws {
        graph = try scope.graph()
        after = try p[Self.after]
        // 0 (or less) lists nothing and only tells whether there is more.
        limit = max(0, try p[Self.limit] ?? 100)
        authors = try p[Self.authors].map(Set.init)
        var entities: Set<String>?
        if let names = try p[Self.entities] {
            for name in names { _ = try scope.entity(name) }
            entities = Set(names)
        }
        self.entities = entities
    }
}

public struct HistoryResult: RPCResult {
    public static let resultName = "history"
    public static let schema = Schema.object(
        [("transactions", .array(.ref("HistoryTransaction"))), ("more", .boolean)],
        required: ["transactions", "more"], closed: true)
    let transactions: [HistoryTransaction]
    let more: Bool
    public var json: JSON {
        .object(["transactions": .array(transactions.map(HistoryWire.transaction)), "more": .bool(more)])
    }
}

public struct PurgeHistoryParams: RPCParams {
    static let before = Param<JSON>.required(
        "before",
        Schema.types("integer", "string").format("date-time", "a token or an ISO 8601 date") {
            ISO8601.parse($0) != nil
        },
        "A token: history rows before it are deleted; or an ISO 8601 date (a date alone is read as midnight UTC): rows committed before it."
    )
    static let force = Param<Bool?>.optional(
        "force", .boolean, "Also rows a live reader (another open store) has not merged yet (false by default).")
    public static let params = ParamSpec.list(before, force)
    let graph: ObjectGraph
    let before: Int64?
    let beforeTime: Double?
    let force: Bool
    public init(params p: ParamReader, in scope: ParamScope) throws {
        graph = try scope.graph()
        switch try p[Self.before] {
        case .string(let date): (before, beforeTime) = (nil, ISO8601.parse(date))
        case let token: (before, beforeTime) = (Int64(param: token), nil)
        }
        force = try p[Self.force] ?? false
    }
}

public struct ExternalChange: NotificationPayload {
    public static let params: [ParamSpec] = [
        .required("token", .integer, "The history token merged up to."),
        .required("transactions", .array(.ref("HistoryTransaction")), "The transactions merged, oldest first."),
        .optional(
            "gap", .boolean,
            "Present (true) when history this fetchd had not read was pruned: its controllers fetched again."),
        .optional(
            "invalid",
            .array(
                .object(
                    [("entity", .string), ("id", .ref("ObjectID")), ("key", .string), ("problem", .string)],
                    required: ["entity", "id", "problem"], closed: true)),
            "Present when plain clients wrote values against the model (merged as stored, null where unreadable)."),
    ]
    let token: Int64
    let transactions: [HistoryTransaction]
    var gap = false
    var invalid: [InvalidValue] = []
    public var json: JSON {
        var o: JSONObject = [
            "token": .integer(token), "transactions": .array(transactions.map(HistoryWire.transaction)),
        ]
        if gap { o["gap"] = .bool(true) }
        if !invalid.isEmpty {
            o["invalid"] = .array(
                invalid.map { v in
                    var item: JSONObject = ["entity": .string(v.id.entity), "id": .string(v.id.description)]
                    if let key = v.key { item["key"] = .string(key) }
                    item["problem"] = .string(v.problem)
                    return .object(item)
                })
        }
        return .object(o)
    }
}

/// A history transaction on the wire.
enum HistoryWire {
    static let schema = Schema.object(
        [
            ("token", .integer), ("author", .types("string", "null")), ("time", .types("number", "null")),
            (
                "changes",
                .array(
                    .object(
                        [
                            ("entity", .string), ("id", .ref("ObjectID")),
                            ("type", .strings(["insert", "update", "delete"])),
                            ("keys", .array(.string)),
                        ],
                        required: ["entity", "id", "type"], closed: true))
            ),
        ], required: ["token", "author", "time", "changes"], closed: true
    )
    .describe(
        "A committed transaction: fetchd's save (author: its context's transactionAuthor) "
            + "or a run of plain-client writes (author null); keys: an update's changed keys.")

    static func transaction(_ t: HistoryTransaction) -> JSON {
        .object([
            "token": .integer(t.token), "author": t.author.map(JSON.string) ?? .null,
            "time": t.time.map(JSON.double) ?? .null, "changes": .array(t.changes.map(change)),
        ])
    }

    static func change(_ c: HistoryChange) -> JSON {
        var o: JSONObject = [
            "entity": .string(c.id.entity), "id": .string(c.id.description),
            "type": .string(type(c.operation)),
        ]
        if let keys = c.keys { o["keys"] = .array(keys.map(JSON.string)) }
        return .object(o)
    }

    static func type(_ op: HistoryChange.Operation) -> String {
        switch op {
        case .insert: return "insert"
        case .update: return "update"
        case .delete: return "delete"
        }
    }
}
