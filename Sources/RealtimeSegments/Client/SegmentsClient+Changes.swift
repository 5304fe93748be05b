extension SegmentsClient {
    /// The changes of `category`'s segments, as an `AsyncSequence` of full lists: what a
    /// ``SegmentCallbackData`` registered now with `isIncludeFirstLoad: includeFirstLoad` would
    /// receive, in the same order, by the same notify rule (SPEC §4), including the `[]` that
    /// clears a category after a customer switch; except that a buffered list of a customer no
    /// longer current when it is taken comes out as `[]` (see ``SegmentChanges``).
    ///
    /// ```swift
    /// let task = Task {
    ///     for await segments in client.segmentChanges(for: .content, includeFirstLoad: true) {
    ///         render(segments)
    ///     }
    /// }
    /// // later: ends the loop and removes the registration
    /// task.cancel()
    /// ```
    ///
    /// The registration is made by this call (not when iteration starts) and counts in
    /// ``SegmentationManager/callbackCount``; like ``SegmentationManager/addCallback(callbackData:)``
    /// it requests a check if the client is started. It is removed as soon as the sequence ends:
    /// when the consuming task is cancelled, when the loop is left (the iterator is discarded), when
    /// the sequence is discarded without being iterated, or when the client stops (``stop(timeout:)``
    /// or its deinit). Called on a stopped client, or with an empty category (logged as
    /// `Segments:` error), it returns a sequence that has already ended.
    ///
    /// Buffering: delivery never waits for the consumer; the callback behind the sequence only
    /// appends to its buffer. A buffered list of a customer that is no longer current when the
    /// consumer takes it is handed out as `[]` (see ``SegmentChanges``). With `.unbounded` (the
    /// default) every list not yet consumed is kept, so a slow consumer still sees every list of
    /// the current customer, in order, at the cost of memory while it lags; with `.latest` only
    /// the newest unconsumed list is kept (see ``SegmentChanges/BufferingPolicy``).
    public func segmentChanges(
        for category: SegmentCategory,
        includeFirstLoad: Bool = false,
        bufferingPolicy: SegmentChanges.BufferingPolicy = .unbounded
    ) -> SegmentChanges {
        let (stream, continuation) = AsyncStream<SegmentChanges.Delivered>.makeStream(
            bufferingPolicy: bufferingPolicy == .latest ? .bufferingNewest(1) : .unbounded)
        let identity = self.identity
        let changes = SegmentChanges(stream: stream, continuation: continuation, identity: identity)
        // Tagged with the generation current as it is called (the delivery checked it just before),
        // so that the iterator can skip it once the customer changed.
        let callback = SegmentCallbackData(category: category, isIncludeFirstLoad: includeFirstLoad) { segments in
            continuation.yield(SegmentChanges.Delivered(generation: identity.generation, segments: segments))
        }
        let (id, registry, openChanges) = (callback.id, segmentation.registry, openChanges)
        let ended = Locked(false)
        // Set before anything can end the sequence, so every ending runs it. It captures no
        // continuation: the stream's storage holds it until it runs.
        continuation.onTermination = { _ in
            ended.withLock { $0 = true }
            openChanges.remove(id)
            registry.remove(identity: id, category: category)
        }
        guard category.isValid, openChanges.add(callback.id, continuation) else {
            // addCallback logs the empty category.
            if !category.isValid { segmentation.addCallback(callbackData: callback) }
            continuation.finish()
            return changes
        }
        segmentation.addCallback(callbackData: callback)
        // An ending that ran before the registration (client stopped meanwhile) removed nothing;
        // the flag is read after registering, so one of the two removes it.
        if ended.withLock({ $0 }) {
            registry.remove(identity: id, category: category)
        }
        return changes
    }
}
