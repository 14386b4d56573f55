import Model

/// A compilation cache key that compares text byte for byte.
///
/// Swift's String `==` (and so FetchRequest's synthesized `==`) treats canonically
/// equivalent text as equal: `name == 'é'` and `name == 'e\u{301}'` would share one cache
/// entry, yet they select different objects. This key compares every string by its UTF-8
/// bytes, and every string value in the variables too.
struct RequestKey: Hashable {
    let request: FetchRequest
    let sectionNameKeyPath: String?

    func hash(into hasher: inout Hasher) {
        hasher.combine(bytes: request.entity)
        hasher.combine(bytes: request.predicate ?? "")
        hasher.combine(bytes: sectionNameKeyPath ?? "")
        hasher.combine(request.sortDescriptors.count)
        hasher.combine(request.variables.count)
    }

    static func == (a: RequestKey, b: RequestKey) -> Bool {
        let x = a.request
        let y = b.request
        guard same(x.entity, y.entity), same(x.predicate, y.predicate),
            same(a.sectionNameKeyPath, b.sectionNameKeyPath),
            x.fetchLimit == y.fetchLimit, x.fetchOffset == y.fetchOffset,
            x.sortDescriptors.count == y.sortDescriptors.count, x.variables.count == y.variables.count,
            x.listVariables.count == y.listVariables.count
        else { return false }
        for (d, e) in zip(x.sortDescriptors, y.sortDescriptors) {
            guard same(d.key, e.key), d.ascending == e.ascending, d.comparator == e.comparator else { return false }
        }
        for (name, v) in x.variables {
            guard let w = y.variables[name], same(v, w) else { return false }
        }
        for (name, vs) in x.listVariables {
            guard let ws = y.listVariables[name], vs.count == ws.count, zip(vs, ws).allSatisfy(same) else {
                return false
            }
        }
        return true
    }

    private static func same(_ a: String?, _ b: String?) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case (let x?, let y?): return ByteOrder.equal(x, y)
        default: return false
        }
    }

    private static func same(_ a: Value, _ b: Value) -> Bool {
        switch (a, b) {
        case (.string(let x), .string(let y)), (.uuid(let x), .uuid(let y)): return ByteOrder.equal(x, y)
        default: return a == b
        }
    }
}

extension Hasher {
    fileprivate mutating func combine(bytes text: String) {
        var t = text
        t.withUTF8 { combine(bytes: UnsafeRawBufferPointer($0)) }
        combine(0xFF as UInt8)
    }
}
