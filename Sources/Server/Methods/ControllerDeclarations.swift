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

let controllerParam = Param<String>.required("controller", .string, "A controller's name.")

public struct ControllerParams: RPCParams {
    public static let params = ParamSpec.list(controllerParam)
    let name: String
    let entry: ControllersState.Entry
    public init(params p: ParamReader, in scope: ParamScope) throws {
        name = try p[controllerParam]
        entry = try scope.controller(name)
    }
}

extension ControllersState.Delivery: ParamValue {}

public struct CreateControllerParams: RPCParams {
    static let name = Param<String>.required("name", Schema.string.minLength(1), "Unique per process, not empty.")
    static let sectionNameKeyPath = Param<String?>.optional(
        "sectionNameKeyPath", .string, "Sections by this key path's value.")
    static let keys = Param<[String]?>.optional("keys", .array(.string))
    static let objects = Param<Bool?>.optional("objects", .boolean)
    static let mode = Param<ControllersState.Delivery?>.optional("mode", .cases(ControllersState.Delivery.self))
    static let notify = Param<JSONObject?>.optional(
        "notify", Schema.object(members: [keys, objects, mode]).excluding("keys", when: "objects", is: false),
        "What change notifications carry: every value (absent), {keys} or {objects: false} (ids only); "
            + "mode \"difference\" sends one controller/didChange per cycle.")
    public static let params = ParamSpec.list(contextParam, name, requestParam, sectionNameKeyPath, notify)
    let context: Context
    let name: String
    let entity: Entity
    let compiled: CompiledRequest
    let projection: ControllersState.Projection
    let delivery: ControllersState.Delivery
    let model: ObjectModel

    public init(params p: ParamReader, in scope: ParamScope) throws {
        context = try scope.context(try p[contextParam])
        name = try p[Self.name]
        let request = try p[requestParam]
        entity = try scope.entity(request.entity)
        let compiler = try scope.compiler()
        compiled = try compiler.compile(request, sectionNameKeyPath: try p[Self.sectionNameKeyPath])
        let notify = try p.members(Self.notify)
        projection = try Self.projection(notify, entity)
        delivery = try notify?[Self.mode] ?? .rows
        model = try scope.graph().store.model
    }

    /// `notify`: omitted for every value, `{keys: [...]}` for those keys, `{objects: false}` for ids only.
    static func projection(_ notify: ParamReader?, _ entity: Entity) throws -> ControllersState.Projection {
        guard let n = notify else { return .allValues }
        if try n[objects] == false { return .idsOnly }
        if let keys = try WireObject.projection(try n[keys], entity: entity) { return .keys(keys) }
        return .allValues
    }
}

public struct RowsParams: RPCParams {
    // A negative section, offset or limit is the engine's invalidValue (protocol.md §9).
    static let section = Param<Int>.required("section", Schema.integer.minimum(0, checkedBy: .engine))
    static let offset = Param<Int?>.optional(
        "offset", Schema.integer.minimum(0, checkedBy: .engine), "0 by default.")
    static let limit = Param<Int?>.optional(
        "limit", Schema.integer.minimum(0, checkedBy: .engine), "To the end of the section by default.")
    public static let params = ParamSpec.list(controllerParam, keysParam, section, offset, limit)
    let entry: ControllersState.Entry
    let keys: Set<String>?
    let section: Int
    let offset: Int
    let limit: Int?
    public init(params p: ParamReader, in scope: ParamScope) throws {
        entry = try scope.controller(try p[controllerParam])
        keys = try WireObject.projection(try p[keysParam], entity: entry.entity)
        section = try p[Self.section]
        offset = try p[Self.offset] ?? 0
        limit = try p[Self.limit]
    }
}

public struct ObjectAtParams: RPCParams {
    static let indexPath = Param<[Int]>.required("indexPath", .ref("IndexPath"))
    public static let params = ParamSpec.list(controllerParam, indexPath)
    let entry: ControllersState.Entry
    let indexPath: IndexPath
    public init(params p: ParamReader, in scope: ParamScope) throws {
        entry = try scope.controller(try p[controllerParam])
        let path = try p[Self.indexPath]
        indexPath = IndexPath(section: path[0], row: path[1])
    }
}

public struct IndexPathParams: RPCParams {
    public static let params = ParamSpec.list(controllerParam, idParam)
    let entry: ControllersState.Entry
    let id: ObjectID
    public init(params p: ParamReader, in scope: ParamScope) throws {
        entry = try scope.controller(try p[controllerParam])
        id = try p[idParam]
    }
}

public struct SectionForTitleParams: RPCParams {
    static let title = Param<String>.required("title", .string)
    static let index = Param<Int>.required("index", .integer)
    public static let params = ParamSpec.list(controllerParam, title, index)
    let entry: ControllersState.Entry
    let title: String
    let index: Int
    public init(params p: ParamReader, in scope: ParamScope) throws {
        entry = try scope.controller(try p[controllerParam])
        title = try p[Self.title]
        index = try p[Self.index]
    }
}

/// `controller/setRequest`: an omitted `request` or `sectionNameKeyPath` keeps the current
/// one; `sectionNameKeyPath: null` removes the sections.
public struct SetRequestParams: RPCParams {
    static let request = Param<FetchRequest?>.optional(
        "request", .ref("FetchRequest"), "The whole new request (same entity); absent: keep the current one.")
    static let sectionNameKeyPath = Param<JSON?>.optional(
        "sectionNameKeyPath", .oneOf(.string, .null), "A new section key path; null: no sections; absent: keep.")
    public static let params = ParamSpec.list(controllerParam, request, sectionNameKeyPath)
    let entry: ControllersState.Entry
    let compiled: CompiledRequest
    let model: ObjectModel

    public init(params p: ParamReader, in scope: ParamScope) throws {
        entry = try scope.controller(try p[controllerParam])
        let current = entry.controller.request
        let request: FetchRequest
        if let given = try p[Self.request] {
            request = given
        } else if let current {
            request = current.request
        } else {
            throw p.mismatch("request", "a FetchRequest", got: "missing")
        }
        let section: String?
        switch try p[Self.sectionNameKeyPath] {
        case nil: section = current?.sectionNameKeyPath
        case let given?: section = given.stringValue
        }
        compiled = try scope.compiler().compile(request, sectionNameKeyPath: section)
        model = try scope.graph().store.model
    }
}
