import Model
import Store

/// Writes under read snapshots (protocol.md §5, "One state per message"). The contexts read
/// the state of the last merge; a write works on the newest state. So that its cycles never
/// mix the two, a write merges first, under its lock, what other processes committed since
/// that merge, and once it ended, what they committed in the instant before the next
/// snapshot was taken.
extension ObjectGraph {
    /// Begins a save's or a batch's write transaction, the others' commits merged in it.
    func beginWrite(author: String?) throws(EngineError) {
        try store.beginWrite(author: author)
        guard store.readSnapshots != .off else { return }
        do throws(EngineError) {
            if try store.hasExternalChanges() { _ = try mergeReadState() }
        } catch {
            store.rollbackWrite()
            throw error
        }
    }

    /// After a write ended: merges what landed between its end and the new snapshot.
    /// Never fails the write: a merge that cannot be made now is made at the next one.
    func settleAfterWrite() {
        guard store.owesMerge, !store.isWriting else { return }
        store.owesMerge = false
        if (try? mergeReadState()) == nil { store.owesMerge = true }
    }
}
