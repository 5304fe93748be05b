import Logging

/// The listener registry of a ``SegmentsClient``: where apps register and remove
/// ``SegmentCallbackData``.
///
/// ```swift
/// let callback = SegmentCallbackData(category: .discovery, isIncludeFirstLoad: true) { segments in
///     print("discovery segments now:", segments)
/// }
/// client.segmentation.addCallback(callbackData: callback)
/// // later
/// client.segmentation.removeCallback(callbackData: callback)
/// ```
///
/// Threading: every method may be called from any thread, including from inside `onNewData`. They
/// never block on a delivery in progress and run no callback; of the app's code they run only the
/// log handler of ``SegmentsConfiguration/logger``.
public final class SegmentationManager: Sendable {
    let registry: CallbackRegistry
    private let logger: Logger
    private let onRegistration: @Sendable () -> Void

    init(registry: CallbackRegistry, logger: Logger, onRegistration: @escaping @Sendable () -> Void) {
        self.registry = registry
        self.logger = logger
        self.onRegistration = onRegistration
    }

    /// Registers `callbackData`. Registering the same value twice creates two registrations.
    ///
    /// If the client is started, this requests a check (debounced like every trigger); a callback
    /// with `isIncludeFirstLoad` is then notified once with the current data. A callback for an
    /// invalid (empty) category is not registered: a `Segments:` error line says so. One added
    /// after the client stopped is never called: a `Segments:` warning says so.
    public func addCallback(callbackData: SegmentCallbackData) {
        guard callbackData.category.isValid else {
            logger.error("Segments: Callback ignored: the category name is empty")
            return
        }
        registry.add(callbackData)
        logger.trace("Segments: Callback registered for category \(callbackData.category)")
        onRegistration()
    }

    /// Registers every value of `callbacks` at once (one registry update instead of one per
    /// callback: the way to register thousands). Same rules as ``addCallback(callbackData:)``.
    public func addCallbacks(_ callbacks: [SegmentCallbackData]) {
        let valid = callbacks.filter(\.category.isValid)
        if valid.count < callbacks.count {
            logger.error("Segments: \(callbacks.count - valid.count) callbacks ignored: the category name is empty")
        }
        guard !valid.isEmpty else { return }
        registry.add(valid)
        logger.trace("Segments: \(valid.count) callbacks registered")
        onRegistration()
    }

    /// Removes every registration with the identity of `callbackData` (and its pending first load).
    ///
    /// After this returns, no delivery that reaches the callback calls it. A delivery running on
    /// another thread that had already checked it may still make that one call, just after this
    /// returns; one already running finishes. (Waiting for that call here would deadlock a
    /// callback that removes itself.)
    /// A value constructed again with the same closure has another identity and removes nothing.
    public func removeCallback(callbackData: SegmentCallbackData) {
        let removed = registry.remove(identity: callbackData.id, category: callbackData.category)
        logger.trace("Segments: Removed \(removed) registrations of a callback for category \(callbackData.category)")
    }

    /// Number of registrations (all categories); 0 once the client has stopped, which lets go of them.
    public var callbackCount: Int { registry.snapshot().count }

    /// Number of registrations of `category`.
    public func callbackCount(for category: SegmentCategory) -> Int {
        registry.snapshot().count(of: category)
    }
}
