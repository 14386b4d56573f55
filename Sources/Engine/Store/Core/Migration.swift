import Model

/// Light migration from the stored model to a new one, planned completely before anything is
/// written, so a refused change leaves the file untouched.
///
/// Allowed: added entities; added attributes that are optional or have a default; added
/// relationships that are optional; removed entities, attributes and relationships; changes
/// of `indexed`, `default`, delete rules and required -> optional; optional -> required with
/// a default (NULLs get the default). Refused: a changed attribute type, optional ->
/// required without default, a required attribute or relationship added without default,
/// a relationship whose destination, cardinality or inverse changed.
struct MigrationPlan {
    /// The SQL dialect of the steps: SQLite's `Schema` or PostgreSQL's `PGSchema`.
    let ddl: any SchemaDDL.Type

    enum Step: Equatable {
        case sql(String)
        /// `UPDATE entity SET column = value WHERE column IS NULL`
        case fill(entity: String, column: String, value: Value)
    }

    var steps: [Step] = []

    init(
        from old: ObjectModel, to new: ObjectModel, existingColumns: [String: Set<String>],
        ddl: any SchemaDDL.Type = Schema.self
    ) throws(EngineError) {
        self.ddl = ddl
        for e in new.entities {
            guard let before = old.entity(e.name) else {
                steps.append(.sql(ddl.createTable(e)))
                steps += ddl.indexes(e).map(Step.sql)
                continue
            }
            try plan(before, e, columns: existingColumns[e.name] ?? [])
        }
        for e in new.entities {
            for r in e.relationships where SchemaNaming.isManyToMany(r, in: new) {
                steps += ddl.createJoinTable(entity: e.name, r).map(Step.sql)
            }
        }
        // Removals last: a relationship's column is cleared before its destination table goes.
        for e in old.entities {
            let survivor = new.entity(e.name)
            for r in e.relationships where survivor?.relationship(r.name) == nil {
                if SchemaNaming.isManyToMany(r, in: old) {
                    let table = SchemaNaming.joinTable(entity: e.name, relationship: r).table
                    steps.append(.sql(ddl.dropTable(table)))
                } else if SchemaNaming.hasColumn(r), survivor != nil {
                    steps.append(.sql(ddl.dropIndex(e.name, r.name)))
                    steps.append(
                        .sql("UPDATE \(SchemaNaming.quoted(e.name)) SET \(SchemaNaming.quoted(r.name)) = NULL"))
                }
            }
        }
        for e in old.entities where new.entity(e.name) == nil {
            steps.append(.sql(ddl.dropTable(e.name)))
        }
    }

    private mutating func plan(_ old: Entity, _ new: Entity, columns: Set<String>) throws(EngineError) {
        let table = SchemaNaming.quoted(new.name)
        for a in new.attributes {
            let column = SchemaNaming.quoted(a.name)
            let hasDefault = a.defaultValue.map { !$0.isNull } ?? false
            guard let was = old.attribute(a.name) else {
                guard a.optional || hasDefault else {
                    throw refused(
                        new.name, a.name, "added attribute \(new.name).\(a.name) is required and has no default")
                }
                steps.append(.sql("ALTER TABLE \(table) ADD COLUMN \(ddl.columnDefinition(a))"))
                if hasDefault, let d = a.defaultValue {
                    steps.append(.fill(entity: new.name, column: a.name, value: d))
                }
                if a.indexed { steps.append(.sql(ddl.createIndex(new.name, a))) }
                continue
            }
            guard was.type == a.type else {
                throw refused(
                    new.name, a.name,
                    "\(new.name).\(a.name) changed type from \(was.type.rawValue) to \(a.type.rawValue)")
            }
            if was.optional && !a.optional {
                guard hasDefault, let d = a.defaultValue else {
                    throw refused(new.name, a.name, "\(new.name).\(a.name) became required without a default")
                }
                steps.append(.fill(entity: new.name, column: a.name, value: d))
            }
            if was.indexed != a.indexed {
                steps.append(
                    .sql(a.indexed ? ddl.createIndex(new.name, a) : ddl.dropIndex(new.name, a.name)))
            }
            _ = column
        }
        for a in old.attributes where new.attribute(a.name) == nil {
            steps.append(.sql(ddl.dropIndex(new.name, a.name)))
            steps.append(.sql("ALTER TABLE \(table) DROP COLUMN \(SchemaNaming.quoted(a.name))"))
        }
        for r in new.relationships {
            guard let was = old.relationship(r.name) else {
                guard r.optional else {
                    throw refused(new.name, r.name, "added relationship \(new.name).\(r.name) is required")
                }
                if SchemaNaming.hasColumn(r) {
                    // A column left behind by a removed relationship of the same name is reused (it is all NULL).
                    if !columns.contains(r.name.lowercased()) {
                        steps.append(.sql("ALTER TABLE \(table) ADD COLUMN \(ddl.columnDefinition(r))"))
                    }
                    steps.append(.sql(ddl.createIndex(new.name, r.name)))
                }
                continue
            }
            guard was.destination == r.destination, was.toMany == r.toMany, was.inverse == r.inverse else {
                throw refused(
                    new.name, r.name, "relationship \(new.name).\(r.name) changed destination, cardinality or inverse")
            }
            if was.optional && !r.optional && !r.toMany {
                throw refused(new.name, r.name, "\(new.name).\(r.name) became required")
            }
        }
    }

    private func refused(_ entity: String, _ key: String, _ reason: String) -> EngineError {
        EngineError(
            .migrationRefused, "migration refused: \(reason); the store was not changed",
            [("entity", .string(entity)), ("key", .string(key)), ("reason", .string(reason))])
    }
}
