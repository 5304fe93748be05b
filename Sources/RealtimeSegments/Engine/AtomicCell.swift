import Atomics

/// One atomic value in a heap cell of its own, shared by reference: `ManagedAtomic` for the
/// paths that run per event.
///
/// `ManagedAtomic` is a non-final class, so every one of its operations first calls the accessor
/// of its storage through the class's vtable: an indirect call before each load on `trackEvent`'s
/// path. Here the storage is an `UnsafeAtomic` held in a `let` of a final class, and
/// `cell.atomic.load(ordering: .relaxed)` compiles to the bare instruction. The orderings stay at
/// the call site, where the Atomics package requires them to be constants.
///
/// Threading: any thread; the cell lives as long as its last reference.
final class AtomicCell<Value: AtomicValue>: Sendable where Value.AtomicRepresentation.Value == Value, Value: Sendable {
    /// The value. Valid for the cell's lifetime: do not keep it beyond a reference to the cell.
    let atomic: UnsafeAtomic<Value>

    init(_ value: Value) {
        atomic = .create(value)
    }

    deinit {
        atomic.destroy()
    }
}
