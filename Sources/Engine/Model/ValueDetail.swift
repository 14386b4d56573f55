/// Values inside error details (a merge conflict's `ours`/`theirs`), written as the wire
/// writes them: dates ISO 8601, binary base64, ids as `Entity/N`.
extension Value {
    public var detail: EngineError.Detail {
        switch self {
        case .null: return .null
        case .integer(let v): return .int(v)
        case .double(let v): return .double(v)
        case .bool(let v): return .bool(v)
        case .string(let s): return .string(s)
        case .date(let t): return .string(ISO8601.format(t))
        case .binary(let b): return .string(Base64.encode(b))
        case .uuid(let u): return .string(u)
        case .object(let id): return .string(id.description)
        case .objects(let ids): return .list(ids.map { .string($0.description) })
        }
    }

    /// The referenced ids of a relationship value (none for `.null` and attributes).
    public var objectIDs: [ObjectID] {
        switch self {
        case .object(let id): return [id]
        case .objects(let ids): return ids
        default: return []
        }
    }
}

extension Entity {
    /// `{key: value}` in model order, for the keys given (all when nil).
    public func detail(of values: Snapshot, keys: [String]? = nil) -> EngineError.Detail {
        let names = keys ?? (attributes.map(\.name) + relationships.map(\.name))
        return .record(names.compactMap { k in values[k].map { (k, $0.detail) } })
    }
}
