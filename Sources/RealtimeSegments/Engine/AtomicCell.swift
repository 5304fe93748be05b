import Synchronization

/// One atomic value in a heap cell of its own, shared by reference: what `ManagedAtomic` would be
/// for the paths that run per event or per callback.
///
/// `ManagedAtomic` is a non-final class, so every one of its operations first calls the accessor
/// of its storage through the class's vtable: an indirect call before each load on `trackEvent`'s
/// path. Here the value is a `Synchronization.Atomic` held in the cell itself, so
/// `cell.atomic.load(ordering: .relaxed)` is one load of the cell's reference and the bare
/// instruction, without the extra load of a pointer to separate storage that an `UnsafeAtomic`
/// in the cell would need.
///
/// Threading: any thread; the cell lives as long as its last reference.
final class AtomicCell<Value: AtomicRepresentable & Sendable>: Sendable {
    /// The value.
    let atomic: Atomic<Value>

    init(_ value: Value) {
        atomic = Atomic(value)
    }
}
