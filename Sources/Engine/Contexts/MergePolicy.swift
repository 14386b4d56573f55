/// What a root save does with an object that another context saved since this context read
/// it (Core Data's merge policies; raw values are the wire's spellings).
public enum MergePolicy: String, Sendable, CaseIterable {
    /// Refuse the save: `mergeConflict` naming every conflict; nothing is written.
    case error
    /// Per key: the keys this context changed win, the others take the stored values.
    case objectTrump
    /// Per key: the keys the other save changed win, this context's other changes are kept.
    case storeTrump
    /// This context's whole object replaces the stored one.
    case overwrite
    /// This context's changes to the object are dropped; the stored object stays.
    case rollback
}
