/// Observers in registration order, each at most once (by identity: `Observer` is a class
/// or a class-bound protocol), held strongly until removed. An observer that refers back to
/// what it observes holds that weakly or unowned.
///
/// Delivery (`notify`) is synchronous and goes in registration order. The list may change
/// during a delivery: an observer removed then hears nothing more, not even the rest of that
/// delivery; one added then (or removed and added again) first hears the next one. A class,
/// so that an observer may add or remove while the list is being walked.
public final class ObserverList<Observer> {
    /// `registration` tells a re-added observer from its earlier registration. A struct, not
    /// a tuple: walking an array of tuples of a generic element from another module asks the
    /// runtime for the tuple's metadata at every step.
    @usableFromInline struct Entry {
        @usableFromInline let id: ObjectIdentifier
        @usableFromInline let registration: Int
        @usableFromInline let observer: Observer
    }

    @usableFromInline var entries: [Entry] = []
    private var registrations = 0

    public init() {}

    public var isEmpty: Bool { entries.isEmpty }
    public var count: Int { entries.count }
    /// In registration order.
    public var all: [Observer] { entries.map(\.observer) }

    /// Appends `observer` after those registered before; adding one already on the list
    /// leaves it where it is. Returns whether it was added.
    @discardableResult
    public func add(_ observer: Observer) -> Bool {
        let id = Self.identity(observer)
        guard !entries.contains(where: { $0.id == id }) else { return false }
        registrations += 1
        entries.append(Entry(id: id, registration: registrations, observer: observer))
        return true
    }

    /// Takes `observer` off the list; returns whether it was on it.
    @discardableResult
    public func remove(_ observer: Observer) -> Bool {
        let id = Self.identity(observer)
        guard let i = entries.firstIndex(where: { $0.id == id }) else { return false }
        entries.remove(at: i)
        return true
    }

    public func removeAll() { entries.removeAll() }

    public func contains(_ observer: Observer) -> Bool {
        let id = Self.identity(observer)
        return entries.contains { $0.id == id }
    }

    /// Calls `body` with each observer in registration order. Walks the list as it was when
    /// the delivery began, skipping any registration removed since. Inlinable, so each list
    /// is walked by code specialized for its observer type.
    @inlinable
    public func notify(_ body: (Observer) throws -> Void) rethrows {
        let walked = entries
        var i = 0
        while i < walked.count {
            let entry = walked[i]
            // Unchanged list (the common case): no search.
            if i < entries.count && entries[i].registration == entry.registration
                || entries.contains(where: { $0.registration == entry.registration })
            {
                try body(entry.observer)
            }
            i += 1
        }
    }

    private static func identity(_ observer: Observer) -> ObjectIdentifier {
        ObjectIdentifier(observer as AnyObject)
    }
}
