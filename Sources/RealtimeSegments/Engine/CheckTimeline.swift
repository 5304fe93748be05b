import Dispatch
import Synchronization

/// When the stages of a check's notification happened: the engine reads the monotonic clock
/// (`DispatchTime`'s: `CLOCK_MONOTONIC` on Linux) as it applies a fetched result and hands the
/// check's first delivery on, and the delivery thread as it starts that delivery. `segments-bench`
/// sets one in ``SegmentsConfiguration/checkTimeline`` to break the notification latency (data
/// received → first callback) into its stages.
///
/// Only a check's first delivery is stamped: its callbacks are the first to run, and the stages of
/// any other category overlap with them. A check whose result is not applied (a failure, another
/// customer's data) stamps nothing; one that is applied but delivers nothing stamps only
/// ``Stage/applying``. A later check overwrites the stamps: ``reset()`` before a check tells its
/// stamps from those of the one before.
///
/// Threading: any thread. The engine thread stamps ``Stage/applying``, ``Stage/spelling`` and
/// ``Stage/ready``, a delivery thread ``Stage/deliveryStarted``. A reader that waited for the
/// check's callbacks to run (`waitUntilIdle`, for example) reads every stamp of that check.
@_spi(Benchmarks)
public final class CheckTimeline: Sendable {
    /// A stage's start, in the order a check reaches them.
    public enum Stage: CaseIterable, Sendable {
        /// The engine starts applying a fetched result: comparing it with the last known state.
        case applying
        /// The result is compared and stored; the first delivered category's ids are being spelled
        /// out (the strings the callbacks read).
        case spelling
        /// The first delivery is built and is being handed to its category's queue.
        case ready
        /// A delivery thread starts that delivery: it loads the registrations, then calls them.
        case deliveryStarted
    }

    private let applying = Atomic<UInt64>(0)
    private let spelling = Atomic<UInt64>(0)
    private let ready = Atomic<UInt64>(0)
    private let deliveryStarted = Atomic<UInt64>(0)

    /// A timeline with no stamps.
    public init() {}

    /// When `stage` last started (monotonic nanoseconds), or `nil` if it has not since ``reset()``.
    public func stamp(of stage: Stage) -> UInt64? {
        let value =
            switch stage {
            case .applying: applying.load(ordering: .acquiring)
            case .spelling: spelling.load(ordering: .acquiring)
            case .ready: ready.load(ordering: .acquiring)
            case .deliveryStarted: deliveryStarted.load(ordering: .acquiring)
            }
        return value == 0 ? nil : value
    }

    /// Forgets every stamp.
    public func reset() {
        applying.store(0, ordering: .releasing)
        spelling.store(0, ordering: .releasing)
        ready.store(0, ordering: .releasing)
        deliveryStarted.store(0, ordering: .releasing)
    }

    /// Stamps `stage` with the time now.
    func mark(_ stage: Stage) {
        let now = DispatchTime.now().uptimeNanoseconds
        switch stage {
        case .applying: applying.store(now, ordering: .releasing)
        case .spelling: spelling.store(now, ordering: .releasing)
        case .ready: ready.store(now, ordering: .releasing)
        case .deliveryStarted: deliveryStarted.store(now, ordering: .releasing)
        }
    }
}
