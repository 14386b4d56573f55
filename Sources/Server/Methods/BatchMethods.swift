extension Server {
    /// `store/batch*`: the engine writes and merges; the change sets it delivers reach the
    /// controllers like any other cycle's.
    func batchMethods() -> [MethodTable.Entry] {
        let scope = paramScope
        typealias D = BatchDeclarations
        return [
            D.insert.handle(in: scope) { p in
                if p.more {
                    let held = try p.graph.holdInsertPart(p.entity.name, rows: p.rows, rejected: p.rejected)
                    return BatchInsertResult(ids: [], returnIds: false, held: held)
                }
                let ids = try p.graph.batchInsert(p.entity.name, rows: p.rows, rejected: p.rejected)
                return BatchInsertResult(ids: ids, returnIds: p.returnIds)
            },
            D.cancelInsert.handle(in: scope) { p in
                Single(.integer(Int64(try p.graph.dropHeldInsert(p.entity.name))))
            },
            D.update.handle(in: scope) { p in
                Single(.integer(Int64(try p.graph.batchUpdate(p.entity.name, filter: p.filter, values: p.values))))
            },
            D.updateObjects.handle(in: scope) { p in
                Single(
                    .integer(Int64(try p.graph.batchUpdate(p.entity.name, objects: p.objects, rejected: p.rejected))))
            },
            D.delete.handle(in: scope) { p in
                Single(.integer(Int64(try p.graph.batchDelete(p.entity.name, filter: p.filter, ids: p.ids))))
            },
        ]
    }
}
