import Model

/// One notification of a change cycle, before the server adds object values.
public enum ControllerEvent: Equatable, Sendable {
    public enum SectionChange: String, Sendable { case insert, delete }
    public enum ObjectChange: String, Sendable { case insert, delete, move, update }

    case willChangeContent
    /// `index` is the OLD index for a delete, the NEW index for an insert.
    case section(SectionChange, index: Int, SectionInfo)
    /// `indexPath` is OLD (delete, move, update); `newIndexPath` NEW (insert, move, update).
    case object(ObjectChange, ObjectID, indexPath: IndexPath?, newIndexPath: IndexPath?)
    case didChangeContent
}

/// A cycle that put every visible row of a controller holding nothing in at once (a bulk
/// insert into an empty entity, a first load): each visible section's rows in order. A
/// million inserted rows stay a million numbers here; `events` spells them out as the
/// per-row stream reports them.
public struct ControllerFill: Sendable {
    public struct Section: Sendable {
        public let info: SectionInfo
        /// The id numbers of the section's rows, in order.
        public let numbers: [Int64]
    }

    public let entity: String
    /// With a section key path every visible section is inserted too (§10.5).
    public let sectioned: Bool
    /// The visible sections in order.
    public let sections: [Section]

    /// The cycle as events, in wire order: sections, then rows, each by new position.
    public var events: [ControllerEvent] {
        var events: [ControllerEvent] = [.willChangeContent]
        events.reserveCapacity(sections.reduce(0) { $0 + $1.numbers.count } + sections.count + 2)
        if sectioned {
            for (i, s) in sections.enumerated() { events.append(.section(.insert, index: i, s.info)) }
        }
        for (i, s) in sections.enumerated() {
            for (row, number) in s.numbers.enumerated() {
                events.append(
                    .object(
                        .insert, ObjectID(entity: entity, number: number), indexPath: nil,
                        newIndexPath: IndexPath(section: i, row: row)))
            }
        }
        events.append(.didChangeContent)
        return events
    }
}

/// What one change cycle reports: events, a fill kept compact (`ControllerFill`) for a
/// consumer that can take it whole, or a fetch the cycle needed and could not make.
public enum CycleNotifications: Sendable {
    case events([ControllerEvent])
    case filled(ControllerFill)
    /// The cycle changed nothing: the controller kept its results (what its client holds)
    /// and fetches again at its next cycle (`FetchedResultsController.needsRefetch`).
    case failed(EngineError)

    /// The events; none for a failed cycle.
    public var events: [ControllerEvent] {
        switch self {
        case .events(let events): events
        case .filled(let fill): fill.events
        case .failed: []
        }
    }
}
