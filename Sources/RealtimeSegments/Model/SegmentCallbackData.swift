import Foundation

/// A listener for real-time segment changes of one category.
///
/// Register it with ``SegmentationManager/addCallback(callbackData:)``. The value has an identity,
/// ``id``, minted when it is constructed; copies share it. ``SegmentationManager/removeCallback(callbackData:)``
/// removes every registration with that identity, so keep the value you registered: building a new
/// value with the same closure creates a different identity and removes nothing.
///
/// `onNewData` receives the full current list of the category for the current customer (not a delta),
/// on a background thread, never on the thread that called the engine and never while an engine lock
/// is held. It is called when the category's segments changed, and, if ``isIncludeFirstLoad`` is
/// `true`, exactly once more with the current data even if unchanged or empty.
public struct SegmentCallbackData: Sendable, Equatable, Hashable {
    /// The registration identity; equal for copies of one value.
    public let id: UUID
    /// The category this callback listens to.
    public let category: SegmentCategory
    /// `true` to be notified once with the current data even if it has not changed.
    public let isIncludeFirstLoad: Bool
    /// The handler; see the type's documentation for when and where it runs.
    public let onNewData: @Sendable ([Segment]) -> Void

    /// Creates a listener with a new identity.
    public init(
        category: SegmentCategory,
        isIncludeFirstLoad: Bool,
        onNewData: @escaping @Sendable ([Segment]) -> Void
    ) {
        self.id = UUID()
        self.category = category
        self.isIncludeFirstLoad = isIncludeFirstLoad
        self.onNewData = onNewData
    }

    public static func == (lhs: SegmentCallbackData, rhs: SegmentCallbackData) -> Bool { lhs.id == rhs.id }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
}
