import Foundation
import Synchronization

/// One registration of a ``SegmentCallbackData`` in the ``CallbackRegistry``.
///
/// Registering the same value twice creates two registrations with the same ``identity``. A
/// registration carries two atomic flags, so that neither removal nor first-load bookkeeping ever
/// needs to rebuild or lock the registry from the delivery path:
/// - `active` goes false once on removal; delivery skips inactive registrations, so nothing is
///   invoked after ``SegmentationManager/removeCallback(callbackData:)`` returns (other than a call
///   already running).
/// - `firstLoadPending` is set for `isIncludeFirstLoad` registrations and cleared by exactly one
///   claimer: the delivery that serves it, removal, or `anonymize`.
final class Registration: Sendable {
    let identity: SegmentCallbackData.ID
    let category: SegmentCategory
    private let active = Atomic<Bool>(true)
    private let firstLoadPending: Atomic<Bool>
    /// Where its entry is in its category's ``SubscriberRun``, so that a removal finds the entry
    /// without a scan. Read and written only under the registry's writer lock (relaxed).
    let slot = Atomic<Int>(-1)

    init(_ data: SegmentCallbackData) {
        identity = data.id
        category = data.category
        firstLoadPending = Atomic(data.isIncludeFirstLoad)
    }

    @inline(__always)
    var isActive: Bool { active.load(ordering: .acquiring) }

    var hasPendingFirstLoad: Bool { firstLoadPending.load(ordering: .acquiring) }

    /// Marks the registration removed.
    func deactivate() {
        active.store(false, ordering: .releasing)
    }

    /// Clears the pending first load; `true` if this call cleared it (so the caller owns it).
    @inline(__always)
    func claimFirstLoad() -> Bool {
        guard firstLoadPending.load(ordering: .relaxed) else { return false }
        return firstLoadPending.exchange(false, ordering: .acquiringAndReleasing)
    }
}

extension SegmentCallbackData {
    /// The identity type of a callback value.
    public typealias ID = UUID
}
