import Model

/// When the store keeps a read transaction open, so that everything read between two merges
/// comes from one state of the file (protocol.md §5, "One state per message").
public enum ReadSnapshots: Sendable {
    /// Every statement reads the file as it is (the engine's default; a store in memory).
    case off
    /// A host that merges before each message: the snapshot lives from that merge until
    /// the host releases it (`releaseSnapshot`: once the message is answered, or at its next
    /// idle check when its watch sees every write); writes take a new one when they end.
    case perMessage
    /// A host that merges only when asked: the snapshot lives from merge to merge, and
    /// across the writes, which take a new one when they end.
    case held
}
