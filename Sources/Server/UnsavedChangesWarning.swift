import Logging

extension ContextsState {
    /// At the end of the session (protocol.md §2): one warning per context whose unsaved
    /// changes are about to be dropped, so a client that forgot `context/save` can tell.
    func warnAboutUnsavedChanges(_ logger: Logger) {
        for u in graph?.unsavedChanges ?? [] {
            logger.warning(
                """
                closing with unsaved changes in context \(u.context): \(u.inserted) inserted, \
                \(u.updated) updated, \(u.deleted) deleted; they are dropped
                """)
        }
    }
}
