import Model

/// Resolves a parsed predicate against the model and the request's variables.
///
/// Every key must exist on its entity (identifiers reach SQL only as quoted names taken
/// from the model), every constant is typed by what it is compared with (a date string
/// becomes a date, `"Author/3"` an object id), and type errors are reported here, before
/// any SQL runs.
struct Binder {
    private struct Scope {
        var name: String?
        var entity: String
        /// Relationship names from the evaluated object to this scope's objects.
        var path: [String]
    }

    private enum Operand {
        case typed(BoundExpression, ValueClass, key: String)
        /// A literal or request variable, typed later by what it meets.
        case constant(Value, text: String)
        case collection(BoundCollection, element: BoundKeyPath, elementClass: ValueClass, path: [String], key: String)
        case list([Operand], text: String)

        var text: String {
            switch self {
            case .typed(_, _, let k), .constant(_, let k), .collection(_, _, _, _, let k), .list(_, let k): return k
            }
        }
    }

    let model: ObjectModel
    let root: Entity
    let variables: [String: Value]
    let lists: [String: [Value]]
    let source: String
    private var scopes: [Scope]
    private(set) var relationshipPaths: Set<[String]> = []
    /// The evaluated object's own attributes the predicate reads; nil once it reads anything
    /// else (a relationship, SELF, a collection), so a caller can evaluate it on just those.
    private(set) var rootAttributes: Set<String>? = []

    init(model: ObjectModel, root: Entity, variables: [String: Value], lists: [String: [Value]], source: String) {
        self.model = model
        self.root = root
        self.variables = variables
        self.lists = lists
        self.source = source
        self.scopes = [Scope(name: nil, entity: root.name, path: [])]
    }

    // MARK: Predicates

    mutating func bind(_ tree: PredicateSyntaxTree) throws(EngineError) -> BoundPredicate {
        switch tree {
        case .constant(let b): return .constant(b)
        case .not(let p): return .not(try bind(p))
        case .and(let ps):
            var out: [BoundPredicate] = []
            for p in ps { out.append(try bind(p)) }
            return .and(out)
        case .or(let ps):
            var out: [BoundPredicate] = []
            for p in ps { out.append(try bind(p)) }
            return .or(out)
        case .comparison(let c): return try bindComparison(c)
        }
    }

    private mutating func bindComparison(_ c: ComparisonSyntax) throws(EngineError) -> BoundPredicate {
        if let q = c.quantifier {
            let lhs = try resolve(c.lhs)
            guard case .collection(let coll, let element, let elementClass, let path, let key) = lhs else {
                throw CompileError.typeMismatch(
                    entity: root.name, key: lhs.text, expected: "a to-many key path after \(q.rawValue)",
                    got: describe(lhs))
            }
            scopes.append(Scope(name: nil, entity: coll.hop.destination, path: path))
            defer { scopes.removeLast() }
            let rhs = try resolve(c.rhs)
            let inner = try bindOperator(.typed(.key(element), elementClass, key: key), c.op, c.options, rhs)
            switch q {
            case .anyOf: return .exists(coll, inner)
            case .allOf: return .not(.exists(coll, .not(inner)))
            case .noneOf: return .not(.exists(coll, inner))
            }
        }
        let lhs = try resolve(c.lhs)
        if case .collection(let coll, let element, let elementClass, let path, let key) = lhs {
            // `tags.name CONTAINS 'x'`: membership, the same as ANY tags.name == 'x'.
            guard c.op == .contains else {
                throw CompileError.typeMismatch(
                    entity: root.name, key: key, expected: "ANY, ALL or NONE before a to-many key path",
                    got: "a to-many key path")
            }
            scopes.append(Scope(name: nil, entity: coll.hop.destination, path: path))
            defer { scopes.removeLast() }
            let rhs = try resolve(c.rhs)
            return .exists(coll, try leaf(.typed(.key(element), elementClass, key: key), .equal, c.options, rhs))
        }
        let rhs = try resolve(c.rhs)
        if case .collection(let coll, let element, let elementClass, let path, let key) = rhs {
            // `'x' IN tags.name`: membership again.
            guard c.op == .in else {
                throw CompileError.typeMismatch(
                    entity: root.name, key: key, expected: "IN before a to-many key path",
                    got: c.op.rawValue)
            }
            scopes.append(Scope(name: nil, entity: coll.hop.destination, path: path))
            defer { scopes.removeLast() }
            let inner = try resolve(c.lhs) // again, so its own collections get deeper scopes
            return .exists(coll, try leaf(inner, .equal, c.options, .typed(.key(element), elementClass, key: key)))
        }
        return try bindOperator(lhs, c.op, c.options, rhs)
    }

    private mutating func bindOperator(
        _ lhs: Operand, _ op: ComparisonOperator, _ options: ComparisonOptions,
        _ rhs: Operand
    ) throws(EngineError) -> BoundPredicate {
        switch op {
        case .between:
            guard case .list(let bounds, _) = rhs, bounds.count == 2 else {
                throw CompileError.typeMismatch(
                    entity: root.name, key: lhs.text, expected: "BETWEEN {low, high}", got: describe(rhs))
            }
            return .and([
                try leaf(lhs, .greaterOrEqual, options, bounds[0]), try leaf(lhs, .lessOrEqual, options, bounds[1]),
            ])
        case .in:
            if case .list(let items, _) = rhs {
                var terms: [BoundPredicate] = []
                for item in items { terms.append(try leaf(lhs, .equal, options, item)) }
                return .or(terms)
            }
            // `'b' IN name`: a substring test.
            return try leaf(rhs, .contains, options, lhs)
        case .contains:
            if case .list(let items, _) = lhs {
                var terms: [BoundPredicate] = []
                for item in items { terms.append(try leaf(item, .equal, options, rhs)) }
                return .or(terms)
            }
            return try leaf(lhs, .contains, options, rhs)
        case .equal: return try leaf(lhs, .equal, options, rhs)
        case .notEqual: return try leaf(lhs, .notEqual, options, rhs)
        case .less: return try leaf(lhs, .less, options, rhs)
        case .lessOrEqual: return try leaf(lhs, .lessOrEqual, options, rhs)
        case .greater: return try leaf(lhs, .greater, options, rhs)
        case .greaterOrEqual: return try leaf(lhs, .greaterOrEqual, options, rhs)
        case .beginsWith: return try leaf(lhs, .beginsWith, options, rhs)
        case .endsWith: return try leaf(lhs, .endsWith, options, rhs)
        case .like: return try leaf(lhs, .like, options, rhs)
        case .matches: return try leaf(lhs, .matches, options, rhs)
        }
    }

    // MARK: Leaves

    private func leaf(
        _ l: Operand, _ op: LeafOperator, _ options: ComparisonOptions,
        _ r: Operand
    ) throws(EngineError) -> BoundPredicate {
        var (lhs, lc) = try single(l)
        var (rhs, rc) = try single(r)
        // String operators need strings: say so before a constant's typing would complain.
        if op.textKind != nil {
            for (c, o) in [(lc, l), (rc, r)] {
                if let c, !(c.isTextual || c == .null) {
                    throw CompileError.typeMismatch(
                        entity: root.name, key: o.text, expected: "string for \(opName(op))", got: c.description)
                }
            }
        }
        // A constant takes the type of what it meets.
        if case .constant(let v) = lhs, rc != nil, rhs.constantValue == nil {
            lhs = .constant(try coerce(v, to: rc!, key: r.text))
            lc = ValueClass(of: lhs.constantValue!)
        }
        if case .constant(let v) = rhs, lc != nil, lhs.constantValue == nil {
            rhs = .constant(try coerce(v, to: lc!, key: l.text))
            rc = ValueClass(of: rhs.constantValue!)
        }
        let left = lc ?? ValueClass(of: lhs.constantValue!)
        let right = rc ?? ValueClass(of: rhs.constantValue!)
        guard left.comparable(with: right) else {
            let typedIsLeft = lhs.constantValue == nil
            throw CompileError.typeMismatch(
                entity: root.name, key: typedIsLeft ? l.text : r.text,
                expected: (typedIsLeft ? left : right).description,
                got: (typedIsLeft ? right : left).description)
        }
        if op.textKind != nil {
            for (c, o) in [(left, l), (right, r)] where !(c.isTextual || c == .null) {
                throw CompileError.typeMismatch(
                    entity: root.name, key: o.text, expected: "string for \(opName(op))", got: c.description)
            }
        } else if op != .equal && op != .notEqual {
            for (c, o) in [(left, l), (right, r)] {
                if case .object = c {
                    throw CompileError.typeMismatch(
                        entity: root.name, key: o.text, expected: "a number, string or date for \(opName(op))",
                        got: c.description)
                }
            }
        }
        let textual = left.isTextual || right.isTextual
        let opts: ComparisonOptions = textual ? options.folding : []
        var op = op
        if lhs.constantValue != nil, rhs.constantValue == nil, let flipped = op.flipped {
            swap(&lhs, &rhs)
            op = flipped
        }
        if let a = lhs.constantValue, let b = rhs.constantValue {
            if op == .matches, case .string(let p) = b, RegexBox(p, ignoreCase: false) == nil {
                throw CompileError.invalidValue(p, reason: "not a valid regular expression")
            }
            return .constant(ValueComparison.evaluate(op, opts, a, b))
        }
        var prepared: PreparedComparison?
        if let b = rhs.constantValue {
            guard let p = PreparedComparison(op, opts, constant: b) else {
                throw CompileError.invalidValue(ValueComparison.text(b) ?? "", reason: "not a valid regular expression")
            }
            prepared = p
        }
        return .compare(lhs, op, opts, rhs, textual: textual, prepared: prepared)
    }

    /// One value (not a list or collection): its expression, and its class when it is not
    /// an untyped constant.
    private func single(_ o: Operand) throws(EngineError) -> (BoundExpression, ValueClass?) {
        switch o {
        case .typed(let e, let c, _): return (e, c)
        case .constant(let v, _): return (.constant(v), nil)
        case .collection(_, _, _, _, let key):
            throw CompileError.typeMismatch(
                entity: root.name, key: key, expected: "ANY, ALL or NONE before a to-many key path",
                got: "a to-many key path")
        case .list(_, let text):
            throw CompileError.typeMismatch(entity: root.name, key: text, expected: "a single value", got: "a list")
        }
    }

    private func opName(_ op: LeafOperator) -> String {
        switch op {
        case .equal: return "=="
        case .notEqual: return "!="
        case .less: return "<"
        case .lessOrEqual: return "<="
        case .greater: return ">"
        case .greaterOrEqual: return ">="
        case .beginsWith: return "BEGINSWITH"
        case .endsWith: return "ENDSWITH"
        case .contains: return "CONTAINS"
        case .like: return "LIKE"
        case .matches: return "MATCHES"
        }
    }

    private func describe(_ o: Operand) -> String {
        switch o {
        case .typed(_, let c, _): return c.description
        case .constant(let v, _): return ValueClass(of: v).description
        case .collection: return "a to-many key path"
        case .list(let items, _): return "a list of \(items.count)"
        }
    }

    /// Types an untyped constant (literal or request variable) as `target`.
    private func coerce(_ v: Value, to target: ValueClass, key: String) throws(EngineError) -> Value {
        if v.isNull { return .null }
        switch (target, v) {
        case (.text, .string), (.text, .uuid): return v
        case (.uuid, .uuid): return v
        case (.uuid, .string(let s)):
            guard let u = Binder.canonicalUUID(s) else { throw CompileError.invalidValue(s, reason: "not a UUID") }
            return .uuid(u)
        case (.number, .integer), (.number, .double), (.number, .bool),
            (.boolean, .integer), (.boolean, .double), (.boolean, .bool):
            return v
        case (.date, .date): return v
        case (.date, .string(let s)):
            guard let t = ISO8601.parse(s) else { throw CompileError.invalidValue(s, reason: "not an ISO 8601 date") }
            return .date(t)
        case (.binary, .binary): return v
        case (.object(let e), .object(let id)) where id.entity == e: return v
        case (.object(let e), .string(let s)):
            guard let id = ObjectID(s), id.entity == e else {
                throw CompileError.typeMismatch(entity: root.name, key: key, expected: "an id \(e)/N", got: "'\(s)'")
            }
            return .object(id)
        default:
            throw CompileError.typeMismatch(
                entity: root.name, key: key, expected: target.description,
                got: ValueClass(of: v).description)
        }
    }

    static func canonicalUUID(_ s: String) -> String? {
        let u = Array(s.lowercased().utf8)
        guard u.count == 36 else { return nil }
        for (i, c) in u.enumerated() {
            if i == 8 || i == 13 || i == 18 || i == 23 {
                guard c == UInt8(ascii: "-") else { return nil }
            } else {
                guard (c >= 48 && c <= 57) || (c >= 97 && c <= 102) else { return nil }
            }
        }
        return String(decoding: u, as: UTF8.self)
    }

    // MARK: Operands

    private mutating func resolve(_ e: ExpressionSyntax) throws(EngineError) -> Operand {
        switch e {
        case .literal(let l, _):
            switch l {
            case .string(let s): return .constant(.string(s), text: "'\(s)'")
            case .integer(let v): return .constant(.integer(v), text: String(v))
            case .real(let v): return .constant(.double(v), text: String(v))
            case .bool(let b): return .constant(.bool(b), text: b ? "TRUE" : "FALSE")
            case .null: return .constant(.null, text: "NULL")
            }
        case .list(let items, _):
            var out: [Operand] = []
            for item in items { out.append(try resolve(item)) }
            return .list(out, text: "{...}")
        case .keyPath(let k):
            return try resolveKeyPath(k)
        }
    }

    private mutating func resolveKeyPath(_ k: KeyPathSyntax) throws(EngineError) -> Operand {
        switch k.root {
        case .object, .selfObject:
            return try walk(scope: 0, k.components, text: k.text)
        case .variable(let name):
            if let s = scopes.lastIndex(where: { $0.name == name }) {
                return try walk(scope: s, k.components, text: k.text)
            }
            guard k.components.isEmpty else {
                throw CompileError.typeMismatch(
                    entity: root.name, key: k.text, expected: "a value", got: "a key path on a request variable")
            }
            if let list = lists[name] {
                return .list(list.map { .constant($0, text: "$" + name) }, text: "$" + name)
            }
            guard let v = variables[name] else { throw CompileError.missingVariable(name) }
            if case .objects(let ids) = v {
                return .list(ids.map { .constant(.object($0), text: "$" + name) }, text: "$" + name)
            }
            return .constant(v, text: "$" + name)
        case .subquery(let collection, let variable, let predicate):
            guard k.components == ["@count"] else {
                throw PredicateSyntax.error(source, offset: k.offset, expected: "'.@count' right after SUBQUERY(...)")
            }
            let c = try resolveKeyPath(collection)
            guard case .collection(let coll, let element, _, let path, _) = c, element.hops.isEmpty,
                case .object = element.terminal
            else {
                throw CompileError.typeMismatch(
                    entity: root.name, key: collection.text, expected: "a to-many relationship for SUBQUERY",
                    got: describe(c))
            }
            scopes.append(Scope(name: variable, entity: coll.hop.destination, path: path))
            defer { scopes.removeLast() }
            let inner = try bind(predicate)
            return .typed(.count(coll, inner), .number, key: k.text)
        }
    }

    /// Follows `components` from the objects of scope `s`.
    private mutating func walk(scope s: Int, _ components: [String], text: String) throws(EngineError) -> Operand {
        guard var entity = model.entity(scopes[s].entity) else { throw CompileError.unknownEntity(scopes[s].entity) }
        var hops: [ToOneHop] = []
        var path = scopes[s].path
        if components.isEmpty {
            rootAttributes = nil
            return .typed(
                .key(BoundKeyPath(scope: s, hops: [], terminal: .object(entity.name))), .object(entity.name), key: text)
        }
        var i = 0
        while i < components.count {
            let name = components[i]
            let last = i == components.count - 1
            if let a = entity.attribute(name) {
                guard last else {
                    let next = components[i + 1]
                    if next.hasPrefix("@") {
                        throw CompileError.typeMismatch(
                            entity: root.name, key: text, expected: "a to-many relationship before \(next)",
                            got: "attribute \(name)")
                    }
                    throw CompileError.unknownKey(entity: entity.name, key: next)
                }
                if s == 0 && hops.isEmpty { rootAttributes?.insert(a.name) } else { rootAttributes = nil }
                return .typed(
                    .key(BoundKeyPath(scope: s, hops: hops, terminal: .attribute(a.name, a.type))), ValueClass(a.type),
                    key: text)
            }
            guard !name.hasPrefix("@"), let r = entity.relationship(name) else {
                if name.hasPrefix("@") {
                    throw CompileError.typeMismatch(
                        entity: entity.name, key: text, expected: "a to-many relationship before \(name)",
                        got: i == 0 ? "nothing" : components[i - 1])
                }
                throw CompileError.unknownKey(entity: entity.name, key: name)
            }
            guard let destination = model.entity(r.destination) else { throw CompileError.unknownEntity(r.destination) }
            path.append(name)
            relationshipPaths.insert(path)
            rootAttributes = nil
            if !r.toMany {
                hops.append(ToOneHop(entity: entity.name, relationship: name, destination: destination.name))
                entity = destination
                i += 1
                if i == components.count {
                    return .typed(
                        .key(BoundKeyPath(scope: s, hops: hops, terminal: .object(entity.name))), .object(entity.name),
                        key: text)
                }
                continue
            }
            let coll = BoundCollection(
                owner: BoundKeyPath(scope: s, hops: hops, terminal: .object(entity.name)),
                hop: try toManyHop(entity, r), elementScope: scopes.count)
            let rest = Array(components[(i + 1)...])
            if rest.isEmpty {
                return .collection(
                    coll,
                    element: BoundKeyPath(scope: coll.elementScope, hops: [], terminal: .object(destination.name)),
                    elementClass: .object(destination.name), path: path, key: text)
            }
            if rest == ["@count"] { return .typed(.count(coll, nil), .number, key: text) }
            scopes.append(Scope(name: nil, entity: destination.name, path: path))
            defer { scopes.removeLast() }
            if rest[0].hasPrefix("@") {
                guard let kind = AggregateKind(rawValue: String(rest[0].dropFirst())) else {
                    throw CompileError.unknownKey(entity: destination.name, key: rest[0])
                }
                let element = try walk(scope: coll.elementScope, Array(rest.dropFirst()), text: text)
                guard case .typed(.key(let key), let cls, _) = element, case .attribute = key.terminal else {
                    throw CompileError.typeMismatch(
                        entity: root.name, key: text, expected: "an attribute after \(rest[0])",
                        got: describe(element))
                }
                let numeric = cls.isNumeric
                guard numeric || ((kind == .min || kind == .max) && (cls.isTextual || cls == .date)) else {
                    throw CompileError.typeMismatch(
                        entity: root.name, key: text,
                        expected: kind == .min || kind == .max
                            ? "a number, string or date" : "a number", got: cls.description)
                }
                let resultClass: ValueClass = kind == .sum || kind == .avg ? .number : cls
                return .typed(.aggregate(kind, coll, key), resultClass, key: text)
            }
            let element = try walk(scope: coll.elementScope, rest, text: text)
            guard case .typed(.key(let key), let cls, _) = element else {
                throw CompileError.typeMismatch(
                    entity: root.name, key: text, expected: "at most one to-many relationship in a key path",
                    got: describe(element))
            }
            return .collection(coll, element: key, elementClass: cls, path: path, key: text)
        }
        throw CompileError.unknownKey(entity: entity.name, key: text)
    }

    private func toManyHop(_ entity: Entity, _ r: Relationship) throws(EngineError) -> ToManyHop {
        guard let inverse = model.inverse(of: r) else {
            throw CompileError.unknownKey(entity: r.destination, key: r.inverse)
        }
        let storage: ToManyHop.Storage
        if inverse.toMany {
            let j = SchemaNaming.joinTable(entity: entity.name, relationship: r)
            storage = .joinTable(table: j.table, selfColumn: j.selfColumn, otherColumn: j.otherColumn)
        } else {
            storage = .inverseColumn(inverse.name)
        }
        return ToManyHop(
            entity: entity.name, relationship: r.name, destination: r.destination, inverse: inverse.name,
            storage: storage)
    }
}
