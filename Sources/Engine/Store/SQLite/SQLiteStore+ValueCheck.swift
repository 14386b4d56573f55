import Model
import SQLite

extension SQLiteStore {
    /// The storage classes SQLite's `typeof` may report for a value of `type`.
    static func storageClasses(_ type: AttributeType) -> Set<String> {
        switch type {
        case .integer, .boolean: return ["integer"]
        case .double, .date: return ["real", "integer"]
        case .string, .uuid: return ["text"]
        case .binary: return ["blob"]
        }
    }

    /// One row per object: `typeof` of each column, then per to-one column whether its
    /// destination row exists.
    private static func checkSQL(_ t: EntityTable) -> String {
        let q = SchemaNaming.quoted
        let pk = q(SchemaNaming.primaryKey)
        let table = q(t.entity.name)
        var items = t.attributes.map { "typeof(\(q($0.name)))" }
        for r in t.toOne {
            let c = q(r.name)
            items += [
                "typeof(\(c))", c, "EXISTS (SELECT 1 FROM \(q(r.destination)) d WHERE d.\(pk) = \(table).\(c))",
            ]
        }
        return "SELECT \(items.isEmpty ? "1" : items.joined(separator: ", ")) FROM \(table) WHERE \(pk) = ?"
    }

    /// What is wrong with the stored row of `id` against the model: a missing required
    /// value, a value of another storage class than its type, a to-one reference to a row
    /// that does not exist. Empty for a valid row or no row.
    public func storedProblems(_ id: ObjectID) throws(EngineError) -> [InvalidValue] {
        guard let t = tables[id.entity] else {
            return [InvalidValue(id: id, key: nil, problem: "entity \(id.entity) is not in the model")]
        }
        do {
            let s = try connection.prepare(Self.checkSQL(t))
            defer { s.reset() }
            try s.bind(.integer(id.number), at: 1)
            guard try s.step() else { return [] }
            var out: [InvalidValue] = []
            var column: Int32 = 0
            for a in t.attributes {
                let stored = s.text(column)
                column += 1
                if stored == "null" {
                    if !a.optional { out.append(InvalidValue(id: id, key: a.name, problem: "required value missing")) }
                } else if !Self.storageClasses(a.type).contains(stored) {
                    out.append(InvalidValue(id: id, key: a.name, problem: "expected \(a.type), found \(stored)"))
                }
            }
            for r in t.toOne {
                let stored = s.text(column)
                let number = s.int64(column + 1)
                let exists = s.int64(column + 2) != 0
                column += 3
                if stored == "null" {
                    if !r.optional {
                        out.append(InvalidValue(id: id, key: r.name, problem: "required relationship missing"))
                    }
                } else if stored != "integer" {
                    out.append(InvalidValue(id: id, key: r.name, problem: "expected an id number, found \(stored)"))
                } else if !exists {
                    out.append(
                        InvalidValue(
                            id: id, key: r.name, problem: InvalidValue.missingTarget("\(r.destination)/\(number)")))
                }
            }
            return out
        } catch { throw Self.storeError(error, "checking \(id)") }
    }
}
