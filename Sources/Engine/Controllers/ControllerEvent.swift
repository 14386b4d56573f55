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
