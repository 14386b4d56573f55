import Contexts
import Model
import Predicates

/// What one change set's objects give under one request (old and new keys, whether they
/// match), worked out by the first controller of the cycle with that request and reused by
/// the others on the same context: a thousand controllers over one request would otherwise
/// evaluate the same objects a thousand times. Lives for one change set.
public final class CycleKeys {
    /// Controllers that agree on this evaluate every object alike: the same compiled request
    /// (filter and ordering, the section key first) over the same context.
    struct Signature: Hashable {
        let request: FetchRequest
        let sectionNameKeyPath: String?
        let source: ObjectIdentifier
    }

    private var rows: [Signature: [AffectedRow]] = [:]

    public init() {}

    /// The rows `evaluate` gives for `signature`, evaluated once per change set.
    func rows(_ signature: Signature, evaluate: () -> [AffectedRow]) -> [AffectedRow] {
        if let known = rows[signature] { return known }
        let evaluated = evaluate()
        rows[signature] = evaluated
        return evaluated
    }
}

extension FetchedResultsController {
    /// Nil when the controller's keys are its own: made from a filter and an ordering rather
    /// than a request, read through relationships (old values then depend on the other
    /// changes), or over a source that is not a context.
    var keysSignature: CycleKeys.Signature? {
        guard tracer.isEmpty, let request, let context = source as? Context else { return nil }
        return CycleKeys.Signature(
            request: request.request, sectionNameKeyPath: request.sectionNameKeyPath,
            source: ObjectIdentifier(context))
    }
}
