import Model

/// Finds the objects of a controller's entity that read a changed object through one of
/// the relationship paths of its filter or ordering (`author.name`, `author.publisher.name`).
///
/// Walks each path backwards from the changed object: the changed object's inverse values
/// before and after the cycle give the objects pointing at it then and now; further steps
/// use the current values (an intermediate object whose relationships changed is itself in
/// the change set, and its own before/after values are used instead).
struct DependencyTracer {
    /// One path resolved against the model: per step, the entity it starts from, the
    /// relationship name, and the inverse relationship name on the destination.
    struct Step {
        var from: String
        var relationship: String
        var destination: String
        var inverse: String
    }

    let paths: [[Step]]

    init(entity: String, paths: [[String]], model: ObjectModel) {
        var resolved: [[Step]] = []
        for path in Set(paths.map { $0 }).sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            var steps: [Step] = []
            var current = entity
            for name in path {
                guard let rel = model.entity(current)?.relationship(name) else { break }
                steps.append(
                    Step(from: current, relationship: name, destination: rel.destination, inverse: rel.inverse))
                current = rel.destination
            }
            if steps.count == path.count, !steps.isEmpty { resolved.append(steps) }
        }
        self.paths = resolved
    }

    var isEmpty: Bool { paths.isEmpty }

    /// Ids of the controller's entity that depend on some changed object, ascending.
    func dependents(of changes: [ObjectID: ChangeSet.Change], in view: any ObjectView) -> [ObjectID] {
        var found = Set<ObjectID>()
        for (id, change) in changes {
            for steps in paths {
                for (j, step) in steps.enumerated() where step.destination == id.entity {
                    // Objects at level j pointing at the changed object, before or after.
                    var level = Set(
                        Self.related(change.before, step.inverse) + Self.related(change.after, step.inverse))
                    var i = j
                    while i > 0, !level.isEmpty {
                        let back = steps[i - 1]
                        var next = Set<ObjectID>()
                        for y in level {
                            if let c = changes[y] {
                                next.formUnion(Self.related(c.before, back.inverse))
                                next.formUnion(Self.related(c.after, back.inverse))
                            } else {
                                next.formUnion(Self.related(view.snapshot(of: y), back.inverse))
                            }
                        }
                        level = next
                        i -= 1
                    }
                    found.formUnion(level.filter { $0.entity == steps[0].from })
                }
            }
        }
        return found.sorted { $0.number < $1.number }
    }

    private static func related(_ snapshot: Snapshot?, _ key: String) -> [ObjectID] {
        switch snapshot?[key] {
        case .object(let id)?: return [id]
        case .objects(let ids)?: return ids
        default: return []
        }
    }
}
