import Atomics
import Dispatch
import RealtimeSegments

/// N callbacks that do what a real subscriber does at the least: touch their own state. Shared by
/// the engine measurement and the closure-loop floor, so both call the very same closures and the
/// ratio between them is the engine's overhead alone.
///
/// The callbacks are ``registrations``, `SegmentCallbackData` values built from closure literals as
/// an app builds them, which the engine registers; the floor calls the same closures from
/// ``closures``. Neither reaches a closure through a thunk. The engine's registrations used to be
/// made from the elements of a `[closure]`: an array holds a function in Swift's generic
/// representation, so each registration wrapped its element in a reabstraction thunk that ran on
/// every call, a cost no app registering a closure literal pays (5.8–6.0 against 4.8–4.9 ns per
/// callback for ordered delivery to 10,000 callbacks on one thread, medians of 3,000 alternating
/// rounds in two runs of a temporary probe). The floor's array holds each closure in a one-field
/// struct, which stores it as the registration does; a loop over the registrations themselves
/// would copy every field of each and cost the floor half as much again (18.9 against 12.3 ns per
/// callback in `peers`, 16 alternating pairs).
///
/// Each callback adds the payload's count to its own counter, 64 bytes away from its neighbours
/// (no false sharing when delivery runs on several cores). Completion is tracked in groups of 64:
/// the last callback of each group (and the very last) bumps one shared counter, so the shared
/// line is written once per 64 callbacks; the group that completes the count stamps the time and
/// signals. The engine's parallel delivery splits work in chunks of multiples of 64, so a group is
/// always run in order by one worker and its last member really is its last.
public final class FanoutTargets: @unchecked Sendable {
    // @unchecked Sendable: `counters` slot i is written only by callback i, and a callback runs on
    // one thread at a time (a delivery loop or the floor loop, never both at once); the counts are
    // read after the run completed (the semaphore or the loop end orders them). Everything else is atomic.
    /// Number of callbacks.
    public let count: Int
    /// The callbacks, in registration order: on `.discovery`, no first load.
    public let registrations: [SegmentCallbackData]
    /// The same closures as the floor calls them, in the same order.
    public let closures: [Closure]
    private let counters: UnsafeMutablePointer<Int>
    private let groupsDone: ManagedAtomic<Int>
    private let armed: ManagedAtomic<Bool>
    private let first: ManagedAtomic<UInt64>
    private let last: ManagedAtomic<UInt64>
    private let done: DispatchSemaphore

    private static let stride = 8

    /// Creates `count` callbacks.
    public init(count: Int) {
        self.count = count
        counters = .allocate(capacity: max(count, 1) * Self.stride)
        counters.initialize(repeating: 0, count: max(count, 1) * Self.stride)
        let slots = CounterSlots(base: counters)
        // Created here rather than as defaults, because the callbacks (a `let`) capture them.
        let groupsDone = ManagedAtomic<Int>(0)
        let armed = ManagedAtomic<Bool>(false)
        let first = ManagedAtomic<UInt64>(0)
        let last = ManagedAtomic<UInt64>(0)
        let done = DispatchSemaphore(value: 0)
        self.groupsDone = groupsDone
        self.armed = armed
        self.first = first
        self.last = last
        self.done = done
        let groups = (count + 63) / 64
        registrations = (0..<count).map { index in
            let isFirst = index == 0
            let closesGroup = index & 63 == 63 || index == count - 1
            return SegmentCallbackData(category: .discovery, isIncludeFirstLoad: false) { @Sendable segments in
                slots.base[index &* Self.stride] &+= segments.count
                if isFirst { first.store(monotonicNanoseconds(), ordering: .relaxed) }
                if closesGroup, groupsDone.wrappingIncrementThenLoad(ordering: .acquiringAndReleasing) == groups {
                    last.store(monotonicNanoseconds(), ordering: .relaxed)
                    if armed.load(ordering: .acquiring) { done.signal() }
                }
            }
        }
        closures = registrations.map { Closure(call: $0.onNewData) }
    }

    /// One callback's closure as the floor's array holds it: in a struct, so that the array stores
    /// it in its own representation rather than Swift's generic one for functions (which would
    /// put a thunk in front of it).
    public struct Closure: Sendable {
        /// The callback.
        public let call: @Sendable ([Segment]) -> Void
    }

    deinit {
        counters.deinitialize(count: max(count, 1) * Self.stride)
        counters.deallocate()
    }

    /// Prepares an engine check: the completing group signals ``waitForLastCallback(timeout:)``.
    func arm() {
        groupsDone.store(0, ordering: .relaxed)
        armed.store(true, ordering: .releasing)
    }

    /// Prepares a floor round: nothing is signalled.
    func disarm() {
        groupsDone.store(0, ordering: .relaxed)
        armed.store(false, ordering: .releasing)
    }

    /// Waits until every callback ran once since ``arm()``.
    func waitForLastCallback(timeout: Duration) -> Bool {
        done.wait(timeout: .now() + .nanoseconds(Int(clamping: timeout.wholeNanoseconds))) == .success
    }

    /// When the first callback last ran.
    var firstAt: UInt64 { first.load(ordering: .acquiring) }
    /// When the last group last completed.
    var lastAt: UInt64 { last.load(ordering: .acquiring) }
    /// A mark for ``record(into:)``, sized for these callbacks. Allocate it once, outside any loop
    /// whose allocations are counted.
    func makeMark() -> CountMark { CountMark(count: count) }

    /// Notes every callback's counter in `mark`. Call it when no delivery is running.
    func record(into mark: CountMark) {
        for index in 0..<count { mark.counts[index] = counters[index &* Self.stride] }
    }

    /// `true` if every callback's counter grew by exactly `delta` since `mark` was recorded: each
    /// callback ran as often as expected, none missed and none ran twice (a miss and a duplicate
    /// elsewhere do not cancel out, as they would in a sum). Call it when no delivery is running.
    func eachCount(grewBy delta: Int, since mark: CountMark) -> Bool {
        (0..<count).allSatisfy { index in counters[index &* Self.stride] &- mark.counts[index] == delta }
    }
}

/// Every callback's counter at one moment (``FanoutTargets/record(into:)``), held in memory
/// allocated once so that recording and comparing allocate nothing.
final class CountMark {
    fileprivate let counts: UnsafeMutableBufferPointer<Int>

    fileprivate init(count: Int) {
        counts = .allocate(capacity: count)
        counts.initialize(repeating: 0)
    }

    deinit { counts.deallocate() }
}

/// The counter array as the closures capture it.
private struct CounterSlots: @unchecked Sendable {
    // @unchecked Sendable: see FanoutTargets — each slot has one writer at a time.
    let base: UnsafeMutablePointer<Int>
}
