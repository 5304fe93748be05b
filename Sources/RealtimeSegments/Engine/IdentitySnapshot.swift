import Atomics

/// The customer identity at one moment: the ids (cookie included) and the generation they belong to.
///
/// Immutable and published atomically by ``IdentityCell``. The generation grows whenever the
/// customer changes (a hard id change, `anonymize`, `stop`); a check started under one generation
/// can only deliver while that generation is still current.
@_spi(Benchmarks)
public final class IdentitySnapshot: AtomicReference, Sendable {
    /// Every id of the customer; `cookie` is always present.
    let customerIds: [String: String]
    /// The customer generation these ids belong to.
    let generation: UInt64
    /// Set by `stop()` with the generation it raises, and kept by every later snapshot: the raise
    /// is the client stopping, not a customer change, even before the engine takes the stop.
    let isStopped: Bool

    init(customerIds: [String: String], generation: UInt64, isStopped: Bool = false) {
        precondition(customerIds[CustomerIdKey.cookie] != nil, "an identity always has a cookie")
        self.customerIds = customerIds
        self.generation = generation
        self.isStopped = isStopped
    }

    /// The anonymous id.
    var cookie: String { customerIds[CustomerIdKey.cookie] ?? "" }

    /// Every id but the cookie: what link-ids sends as `external_ids`.
    var hardIds: [String: String] { customerIds.filter { $0.key != CustomerIdKey.cookie } }
}

/// Well-known customer id keys.
enum CustomerIdKey {
    /// The anonymous id minted by the engine.
    static let cookie = "cookie"
}

/// The current customer identity, readable without a lock from any thread.
///
/// Writers (identify, anonymize, stop) replace the snapshot with a compare-and-swap loop, so they
/// are lock-free too. ``generation`` mirrors the snapshot's generation in a plain atomic integer
/// (raised before each new snapshot is published, so it can briefly run one ahead),
/// because delivery checks it before every callback and a strong-reference load costs a
/// double-wide compare-and-swap.
final class IdentityCell: Sendable {
    private let snapshot: ManagedAtomic<IdentitySnapshot>
    /// Read before every callback of a delivery, so an ``AtomicCell``: the read is a plain load. A
    /// `ManagedAtomic` here cost an indirect call per callback.
    private let generationValue: AtomicCell<UInt64>

    /// See `SegmentsConfiguration.identityHalfPublishedForTesting`.
    private let halfPublishedForTesting: (@Sendable () -> Void)?

    init(_ initial: IdentitySnapshot, halfPublishedForTesting: (@Sendable () -> Void)? = nil) {
        snapshot = ManagedAtomic(initial)
        generationValue = AtomicCell(initial.generation)
        self.halfPublishedForTesting = halfPublishedForTesting
    }

    /// The current identity.
    func load() -> IdentitySnapshot { snapshot.load(ordering: .acquiring) }

    /// The current generation (one atomic load).
    @inline(__always)
    var generation: UInt64 { generationValue.atomic.load(ordering: .acquiring) }

    /// Replaces the identity with `transform(current)`; `nil` leaves it unchanged.
    /// Returns the identity in force after the call.
    @discardableResult
    func update(_ transform: (IdentitySnapshot) -> IdentitySnapshot?) -> IdentitySnapshot {
        var current = snapshot.load(ordering: .acquiring)
        while true {
            guard let next = transform(current) else { return current }
            // The generation first: a thread that sees the new ids must find every result and
            // delivery of the previous customer already stale. Raised for an exchange that then
            // fails, it still matches: the snapshot that won was raised from the same one.
            raiseGeneration(to: next.generation)
            halfPublishedForTesting?()
            let (exchanged, original) = snapshot.compareExchange(
                expected: current, desired: next, ordering: .acquiringAndReleasing)
            if exchanged { return next }
            current = original
        }
    }

    private func raiseGeneration(to value: UInt64) {
        var current = generationValue.atomic.load(ordering: .relaxed)
        while current < value {
            let (exchanged, original) = generationValue.atomic.compareExchange(
                expected: current, desired: value, ordering: .sequentiallyConsistent)
            if exchanged { return }
            current = original
        }
    }
}
