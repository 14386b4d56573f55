import JSON

/// `{}`: the result of methods that only report success.
public struct EmptyResult: RPCResult, Sendable {
    public init() {}
    public static let resultName = "empty"
    public static let schema = Schema.object([], closed: true)
    public var json: JSON { .object(JSONObject()) }
}

/// `null`: LSP's "no result" (`shutdown`).
public struct NullResult: RPCResult, Sendable {
    public init() {}
    public static let resultName = "null"
    public static let schema = Schema.null
    public var json: JSON { .null }
}

/// Results of one member holding JSON the handler built (an object, objects, sections...).
/// `Member` names the member and gives its schema.
public protocol SingleMember {
    static var member: String { get }
    static var memberSchema: Schema { get }
}

public struct Single<Member: SingleMember>: RPCResult {
    public let value: JSON
    public init(_ value: JSON) { self.value = value }
    public static var resultName: String { Member.member }
    public static var schema: Schema {
        .object([(Member.member, Member.memberSchema)], required: [Member.member], closed: true)
    }
    public var json: JSON { .object([Member.member: value]) }
}

public enum ObjectMember: SingleMember {
    public static let member = "object"
    public static let memberSchema = Schema.ref("Object")
}

public enum ObjectsMember: SingleMember {
    public static let member = "objects"
    public static let memberSchema = Schema.array(.ref("Object"))
}

public enum SectionsMember: SingleMember {
    public static let member = "sections"
    public static let memberSchema = Schema.array(.ref("SectionInfo"))
}
