import Model

/// A stored value a plain SQLite client wrote against the model (protocol.md §5, "Bad data
/// from plain clients"). Reads show it converted where SQLite could (column affinity) and
/// null where it could not; nothing is rejected or rewritten.
public struct InvalidValue: Equatable, Sendable {
    public var id: ObjectID
    /// The attribute or relationship; nil for a row of an entity the model does not have.
    public var key: String?
    public var problem: String

    /// Why a reference to `target` (an id, `Entity/N`) is refused: the one wording every
    /// check that finds a missing target uses (a save, a batch, a stored row).
    public static func missingTarget(_ target: String) -> String { "refers to \(target), which does not exist" }

    public init(id: ObjectID, key: String?, problem: String) {
        self.id = id
        self.key = key
        self.problem = problem
    }
}
