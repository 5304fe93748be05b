/// The lists of segments of one category, as the notify rule delivers them: an `AsyncSequence`
/// returned by ``SegmentsClient/segmentChanges(for:includeFirstLoad:bufferingPolicy:)``.
///
/// ```swift
/// for await segments in client.segmentChanges(for: .discovery, includeFirstLoad: true) {
///     show(segments)  // the full current list, [] after a switch to a customer without any
/// }
/// ```
///
/// Each element is the full current list of the category for the current customer (not a delta):
/// the value a ``SegmentCallbackData`` registered at the same moment, with the same options, would
/// receive. A list of a customer that is no longer current when the consumer takes it is handed
/// out as `[]` (once: a run of them, or one after a `[]`, is skipped): after a customer switch has
/// returned, a consumer slower than delivery gets no list of the previous customer that it had not
/// taken yet, and still sees its screen cleared. After `stop()`, such lists are skipped. (A list
/// being delivered at the very moment the switch returns may still be handed out as it is, as it
/// may reach a callback.) The sequence never throws. It can be iterated once (by one task at a time): it ends, and
/// its registration is removed, when the consuming task is cancelled, when its iterator is
/// discarded (a `for await` loop left by `break`, `return` or a throw), when it is discarded
/// without being iterated, or when the client stops.
public struct SegmentChanges: AsyncSequence, Sendable {
    public typealias Element = [Segment]
    public typealias Failure = Never

    /// What the sequence keeps while its consumer is slower than delivery. Either way delivery
    /// never waits for the consumer: the callback feeding the sequence only appends to its buffer.
    public enum BufferingPolicy: Sendable, Hashable {
        /// Keeps every list not yet consumed, so the consumer sees the lists a callback receives,
        /// in the same order (a list of a customer no longer current when taken comes out as `[]`,
        /// see ``SegmentChanges``). Memory grows while the consumer lags.
        case unbounded
        /// Keeps only the newest list not yet consumed. Since every list is the full current one,
        /// a lagging consumer skips intermediate lists but always ends at the current one.
        case latest
    }

    /// A list as delivered, with the customer generation it was delivered for.
    struct Delivered: Sendable {
        var generation: UInt64
        var segments: [Segment]
    }

    let stream: AsyncStream<Delivered>
    let continuation: AsyncStream<Delivered>.Continuation
    let identity: IdentityCell

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: stream.makeAsyncIterator(), identity: identity, end: IterationEnd(continuation))
    }

    /// Yields the lists one by one, those of a customer no longer current as `[]`; `nil` once the
    /// sequence has ended.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncStream<Delivered>.Iterator
        let identity: IdentityCell
        /// Held only so that discarding the iterator (and its copies) ends the sequence.
        let end: IterationEnd
        /// Whether the last list handed out was `[]` (`false` before the first).
        var handedOutEmpty = false

        public mutating func next() async -> [Segment]? {
            while let delivered = await base.next() {
                if let list = take(delivered) { return list }
            }
            return nil
        }

        public mutating func next(isolation actor: isolated (any Actor)?) async -> [Segment]? {
            while let delivered = await base.next(isolation: actor) {
                if let list = take(delivered) { return list }
            }
            return nil
        }

        /// What to hand out for `delivered`, `nil` to skip it.
        private mutating func take(_ delivered: Delivered) -> [Segment]? {
            let list: [Segment]
            if delivered.generation == identity.generation {
                list = delivered.segments
            } else {
                // Another customer's: cleared, unless the consumer already shows nothing or the
                // client stopped.
                guard !handedOutEmpty, !identity.load().isStopped else { return nil }
                list = []
            }
            handedOutEmpty = list.isEmpty
            return list
        }
    }

    /// Ends the sequence when an iterator made from it is discarded, so that leaving a `for await`
    /// loop removes the registration at once, even while the sequence value is still held. (A
    /// sequence discarded without being iterated ends through `AsyncStream`'s own termination.)
    final class IterationEnd: Sendable {
        private let continuation: AsyncStream<Delivered>.Continuation

        init(_ continuation: AsyncStream<Delivered>.Continuation) { self.continuation = continuation }

        deinit { continuation.finish() }
    }
}
