import Model

extension Context {
    /// Inserts a new object with a permanent id. Attributes left out take their default (or
    /// null); relationships set here update their inverses.
    @discardableResult
    public func insert(_ entityName: String, _ values: Snapshot) throws(EngineError) -> ObjectID {
        try holdingReads { () throws(EngineError) in try insertHolding(entityName, values) }
    }

    private func insertHolding(_ entityName: String, _ values: Snapshot) throws(EngineError) -> ObjectID {
        guard let entity = model.entity(entityName) else {
            throw EngineError(.unknownEntity, "no entity \(entityName)", [("entity", .string(entityName))])
        }
        try checkValues(entity, values)
        var initial: Snapshot = Dictionary(minimumCapacity: entity.attributes.count + entity.relationships.count)
        for a in entity.attributes { initial[a.name] = values[a.name] ?? a.defaultValue ?? .null }
        for r in entity.relationships { initial[r.name] = r.toMany ? .objects([]) : .null }
        let id = try store.reserveID(for: entity.name)
        if entity.relationships.allSatisfy({ values[$0.name] == nil }) {
            // Fast path (bulk inserts): nothing else to keep in step.
            try setPending(id, initial, isNew: true)
            return id
        }
        var staging = Staging(self)
        staging.newIDs.insert(id)
        staging.put(id, initial)
        try setRelationships(entity, id, values, in: &staging)
        try staging.apply()
        return id
    }

    /// Changes some keys of an object; keys left out keep their values.
    public func update(_ id: ObjectID, _ values: Snapshot) throws(EngineError) {
        try holdingReads { () throws(EngineError) in try updateHolding(id, values) }
    }

    private func updateHolding(_ id: ObjectID, _ values: Snapshot) throws(EngineError) {
        let current = try existing(id)
        guard let entity = model.entity(id.entity) else { return }
        try checkValues(entity, values)
        var staging = Staging(self)
        // The given attributes set one by one, each compared as it is set: no walk of every
        // attribute, nor a comparison of the whole rows after.
        var next = current
        var changed = false
        for (key, value) in values where entity.attribute(key) != nil {
            if next.updateValue(value, forKey: key) != value { changed = true }
        }
        if changed { staging.put(id, next) }
        try setRelationships(entity, id, values, in: &staging)
        try staging.apply()
    }

    /// Deletes an object, applying the delete rules of its relationships.
    public func delete(_ id: ObjectID) throws(EngineError) {
        try holdingReads { () throws(EngineError) in
            _ = try existing(id)
            var staging = Staging(self)
            try staging.delete(id)
            try staging.apply()
        }
    }

    /// Type checks every key, unknown keys first (sorted), then in model order.
    private func checkValues(_ entity: Entity, _ values: Snapshot) throws(EngineError) {
        // The usual update sets attributes to values of their types: one look-up of each
        // given key says so. Any other is checked in the order that decides its first error.
        if values.allSatisfy({ key, value in entity.attribute(key).map { value.fits($0.type) } ?? false }) { return }
        for key in values.keys.sorted() where entity.key(key) == nil { try entity.check(key, values[key]!) }
        for a in entity.attributes { if let v = values[a.name] { try entity.check(a.name, v) } }
        for r in entity.relationships {
            guard let v = values[r.name] else { continue }
            try entity.check(r.name, v)
            for target in v.objectIDs where try object(target) == nil {
                throw EngineError(
                    .unknownObject, "\(entity.name).\(r.name): no object \(target) in context \(name)",
                    [("id", .string(target.description)), ("key", .string(r.name)), ("context", .string(name))])
            }
        }
    }

    private func setRelationships(_ entity: Entity, _ id: ObjectID, _ values: Snapshot, in staging: inout Staging)
        throws(EngineError)
    {
        for r in entity.relationships {
            guard let v = values[r.name] else { continue }
            if r.toMany {
                try staging.setToMany(id, r, v.objectIDs)
            } else {
                try staging.setToOne(id, r, v.objectIDs.first)
            }
        }
    }
}
