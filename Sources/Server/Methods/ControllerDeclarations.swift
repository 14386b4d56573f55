import Contexts
import Controllers
import JSON
import Model
import Predicates

/// Controllers (protocol.md §9).
public enum ControllerDeclarations {
    static let named: [ErrorKind] = [.invalidParams, .engine(.unknownController)]
    static let reads: [ErrorKind] = [.engine(.unknownObject), .engine(.unknownKey), .engine(.invalidValue)]

    public static let create = MethodDeclaration<CreateControllerParams, ControllerSummary>(
        "controller/create", "Creates a named live query on a context and performs its fetch.",
        errors: [.invalidParams, .engine(.noStore), .engine(.unknownContext), .engine(.duplicateName)]
            + ContextDeclarations.query, reportsProgress: true)
    public static let performFetch = MethodDeclaration<ControllerParams, ControllerSummary>(
        "controller/performFetch", "Reloads the results from the context (no notification).", errors: named)
    public static let sections = MethodDeclaration<ControllerParams, Single<SectionsMember>>(
        "controller/sections", "The sections of the results.", errors: named)
    public static let rows = MethodDeclaration<RowsParams, Single<ObjectsMember>>(
        "controller/rows", "Rows of one section, from offset, up to limit.", errors: named + reads)
    public static let object = MethodDeclaration<ObjectAtParams, Single<ObjectMember>>(
        "controller/object", "The object at an index path.", errors: named + reads)
    public static let indexPath = MethodDeclaration<IndexPathParams, Single<IndexPathMember>>(
        "controller/indexPath", "Where an object is among the rows, or null.", errors: named)
    public static let sectionIndexTitles = MethodDeclaration<ControllerParams, Single<TitlesMember>>(
        "controller/sectionIndexTitles", "The sections' index titles, each once.", errors: named)
    public static let sectionForIndexTitle = MethodDeclaration<SectionForTitleParams, Single<SectionMember>>(
        "controller/sectionForIndexTitle", "The section a table index bar entry stands for.",
        errors: named + [.engine(.invalidValue)])
    public static let setRequest = MethodDeclaration<SetRequestParams, ControllerSummary>(
        "controller/setRequest",
        "Changes a live controller's request; one change cycle goes from the old results to the new.",
        errors: named + ContextDeclarations.query + [.engine(.invalidValue)])
    public static let close = MethodDeclaration<ControllerParams, EmptyResult>(
        "controller/close", "Forgets a controller.", errors: named)
}

public enum IndexPathMember: SingleMember {
    public static let member = "indexPath"
    public static let memberSchema = Schema.oneOf(.ref("IndexPath"), .null)
}

public enum TitlesMember: SingleMember {
    public static let member = "titles"
    public static let memberSchema = Schema.array(.string)
}

public enum SectionMember: SingleMember {
    public static let member = "section"
    public static let memberSchema = Schema.integer
}

/// `{sections, count}`: what controller/create and controller/performFetch answer.
public struct ControllerSummary: RPCResult {
    public static let resultName = "results"
    public static let schema = Schema.object(
        [("sections", .array(.ref("SectionInfo"))), ("count", .integer)],
        required: ["sections", "count"], closed: true)
    let sections: JSON
    let count: Int
    public var json: JSON { .object(["sections": sections, "count": .integer(Int64(count))]) }
}

let controllerParam = ParamSpec.required("controller", .string, "A controller's name.")

public struct ControllerParams: RPCParams {
    public static let params = [controllerParam]
    let name: String
    let entry: ControllersState.Entry
    public init(params p: ParamReader, in scope: ParamScope) throws {
        name = try p.string("controller")
        entry = try scope.controller(name)
    }
}

public struct CreateControllerParams: RPCParams {
    public static let params: [ParamSpec] = [
        contextParam,
        .required("name", .string, "Unique per process, not empty."),
        requestParam,
        .optional("sectionNameKeyPath", .string, "Sections by this key path's value."),
        .optional(
            "notify",
            .object(
                [("keys", .array(.string)), ("objects", .boolean), ("mode", .strings(["rows", "difference"]))],
                closed: true),
            "What change notifications carry: every value (absent), {keys} or {objects: false} (ids only); "
                + "mode \"difference\" sends one controller/didChange per cycle."),
    ]
    let context: Context
    let name: String
    let entity: Entity
    let compiled: CompiledRequest
    let projection: ControllersState.Projection
    let delivery: ControllersState.Delivery
    let model: ObjectModel

    public init(params p: ParamReader, in scope: ParamScope) throws {
        context = try scope.context(try p.string("context"))
        name = try p.string("name")
        guard !name.isEmpty else { throw p.mismatch("name", "a non-empty name", got: "\"\"") }
        let request: FetchRequest = try p.decode("request")
        entity = try scope.entity(request.entity)
        let compiler = try scope.compiler()
        compiled = try compiler.compile(request, sectionNameKeyPath: try p.optionalString("sectionNameKeyPath"))
        projection = try Self.projection(p, entity)
        delivery = try Self.delivery(p)
        model = try scope.graph().store.model
    }

    /// `notify`: omitted for every value, `{keys: [...]}` for those keys, `{objects: false}` for ids only.
    static func projection(_ p: ParamReader, _ entity: Entity) throws -> ControllersState.Projection {
        guard let n = try p.optionalObject("notify") else { return .allValues }
        for key in n.object.keys where !["keys", "objects", "mode"].contains(key) {
            throw n.mismatch(key, "one of keys, objects, mode", got: "unknown key")
        }
        if let objects = try n.optionalBool("objects"), !objects {
            if n.has("keys") { throw n.mismatch("keys", "no keys with objects: false", got: "keys") }
            return .idsOnly
        }
        if let keys = try WireObject.projection(try n.optionalStringArray("keys"), entity: entity) {
            return .keys(keys)
        }
        return .allValues
    }
}

extension CreateControllerParams {
    /// `notify.mode`: "rows" (the default) or "difference".
    static func delivery(_ p: ParamReader) throws -> ControllersState.Delivery {
        guard let n = try p.optionalObject("notify"), let mode = try n.optionalString("mode") else { return .rows }
        guard let delivery = ControllersState.Delivery(rawValue: mode) else {
            throw n.mismatch("mode", "\"rows\" or \"difference\"", got: "\"\(mode)\"")
        }
        return delivery
    }
}

public struct RowsParams: RPCParams {
    public static let params: [ParamSpec] = [
        controllerParam, keysParam,
        .required("section", .integer),
        .optional("offset", .integer, "0 by default."),
        .optional("limit", .integer, "To the end of the section by default."),
    ]
    let entry: ControllersState.Entry
    let keys: Set<String>?
    let section: Int
    let offset: Int
    let limit: Int?
    public init(params p: ParamReader, in scope: ParamScope) throws {
        entry = try scope.controller(try p.string("controller"))
        keys = try WireObject.projection(try p.optionalStringArray("keys"), entity: entry.entity)
        section = try p.int("section")
        offset = try p.optionalInt("offset") ?? 0
        limit = try p.optionalInt("limit")
    }
}

public struct ObjectAtParams: RPCParams {
    public static let params = [controllerParam, ParamSpec.required("indexPath", .ref("IndexPath"))]
    let entry: ControllersState.Entry
    let indexPath: IndexPath
    public init(params p: ParamReader, in scope: ParamScope) throws {
        entry = try scope.controller(try p.string("controller"))
        let path = try p.array("indexPath", of: Int.self)
        guard path.count == 2 else { throw p.mismatch("indexPath", "[section, row]", got: "\(path.count) numbers") }
        indexPath = IndexPath(section: path[0], row: path[1])
    }
}

public struct IndexPathParams: RPCParams {
    public static let params = [controllerParam, idParam]
    let entry: ControllersState.Entry
    let id: ObjectID
    public init(params p: ParamReader, in scope: ParamScope) throws {
        entry = try scope.controller(try p.string("controller"))
        id = try p.id("id")
    }
}

public struct SectionForTitleParams: RPCParams {
    public static let params = [controllerParam, ParamSpec.required("title", .string), .required("index", .integer)]
    let entry: ControllersState.Entry
    let title: String
    let index: Int
    public init(params p: ParamReader, in scope: ParamScope) throws {
        entry = try scope.controller(try p.string("controller"))
        title = try p.string("title")
        index = try p.int("index")
    }
}

/// `controller/setRequest`: an omitted `request` or `sectionNameKeyPath` keeps the current
/// one; `sectionNameKeyPath: null` removes the sections.
public struct SetRequestParams: RPCParams {
    public static let params: [ParamSpec] = [
        controllerParam,
        .optional(
            "request", .ref("FetchRequest"), "The whole new request (same entity); absent: keep the current one."),
        .optional(
            "sectionNameKeyPath", .oneOf(.string, .null), "A new section key path; null: no sections; absent: keep."),
    ]
    let entry: ControllersState.Entry
    let compiled: CompiledRequest
    let model: ObjectModel

    public init(params p: ParamReader, in scope: ParamScope) throws {
        entry = try scope.controller(try p.string("controller"))
        let current = entry.controller.request
        let request: FetchRequest
        if p.has("request") {
            request = try p.decode("request")
        } else if let current {
            request = current.request
        } else {
            throw p.mismatch("request", "a FetchRequest", got: "missing")
        }
        let section: String?
        switch p.object["sectionNameKeyPath"] {
        case nil: section = current?.sectionNameKeyPath
        case .null?: section = nil
        default: section = try p.string("sectionNameKeyPath")
        }
        compiled = try scope.compiler().compile(request, sectionNameKeyPath: section)
        model = try scope.graph().store.model
    }
}
