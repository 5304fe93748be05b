import Dispatch
import Foundation
import Logging
import Synchronization
import XCTest

@_spi(Benchmarks) @testable import RealtimeSegments

/// The delivery spin window (``SegmentsConfiguration/deliverySpinWindow``): a delivery that comes
/// while its category's block still spins is handed to it, never ahead of a block already queued,
/// and the spinning is counted.
final class DeliveryHandOffTests: XCTestCase {
    private func job(_ generation: UInt64) -> DeliveryExecutor.Job {
        DeliveryExecutor.Job(category: .discovery, segments: [], notifyAll: true, generation: generation)
    }

    /// An executor of `registry` (no callbacks by default) with a window far longer than any test:
    /// its blocks spin until handed a delivery or stopped.
    private func makeExecutor(
        counters: EngineCounters = EngineCounters(), registry: CallbackRegistry = CallbackRegistry()
    ) -> DeliveryExecutor {
        DeliveryExecutor(
            registry: registry, identity: IdentityCell(IdentitySnapshot(customerIds: ["cookie": "c"], generation: 1)),
            channels: EngineChannels(ringCapacity: 2), mode: .ordered, spinWindow: .seconds(600),
            logger: Logger(label: "test"), counters: counters)
    }

    /// Runs `awaitNext()` on a thread of its own; the result arrives in `result`.
    private func spinInBackground(_ handOff: DeliveryHandOff, result: Locked<UInt64?>, done: DispatchSemaphore) {
        Thread {
            let next = handOff.awaitNext()
            result.withLock { $0 = next?.generation ?? 0 }
            done.signal()
        }.start()
    }

    /// Returns once `condition` holds, or after 10 s (the caller asserts which).
    private func waitUntil(_ condition: () -> Bool) {
        let deadline = Date().addingTimeInterval(10)
        while !condition() && Date() < deadline { sched_yield() }
    }

    /// Runs `awaitNext()` on a thread of its own (see ``spinInBackground(_:result:done:)``) and
    /// waits up to 10 s for it to spin.
    private func startSpinning(
        _ handOff: DeliveryHandOff, result: Locked<UInt64?>, done: DispatchSemaphore, file: StaticString = #filePath, line: UInt = #line
    ) {
        spinInBackground(handOff, result: result, done: done)
        waitUntil { handOff.isSpinning }
        XCTAssertTrue(handOff.isSpinning, "the block did not start spinning within 10 s", file: file, line: line)
    }

    func testADeliveryOfferedWhileABlockSpinsIsHandedToIt() {
        let counters = EngineCounters()
        // A window far longer than the test: the block spins until the offer comes.
        let handOff = DeliveryHandOff(window: .seconds(600), counters: counters)
        let result = Locked<UInt64?>(nil)
        let done = DispatchSemaphore(value: 0)
        startSpinning(handOff, result: result, done: done)
        XCTAssertTrue(handOff.offer(job(7)))
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(result.withLock { $0 }, 7, "the spinning block received the delivery")
        XCTAssertGreaterThan(counters.deliverySpinNanoseconds.load(ordering: .relaxed), 0)
        XCTAssertFalse(handOff.isSpinning)
    }

    func testClosingEndsTheSpinAndNoBlockSpinsAfterIt() {
        let counters = EngineCounters()
        // A window far longer than the test: only closing can end the spin in time.
        let handOff = DeliveryHandOff(window: .seconds(600), counters: counters)
        let result = Locked<UInt64?>(nil)
        let done = DispatchSemaphore(value: 0)
        startSpinning(handOff, result: result, done: done)
        handOff.close()
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success, "the spinning block went on spinning after close()")
        XCTAssertEqual(result.withLock { $0 }, 0, "the block ended with no delivery")
        XCTAssertGreaterThan(counters.deliverySpinNanoseconds.load(ordering: .relaxed), 0, "the spin it did is counted")
        // A block that finishes a delivery after the close returns at once instead of spinning.
        let later = DispatchSemaphore(value: 0)
        spinInBackground(handOff, result: result, done: later)
        XCTAssertEqual(later.wait(timeout: .now() + 10), .success, "a block started to spin after close()")
        XCTAssertFalse(handOff.isSpinning)
        // Nothing is handed over after the close: the offer is refused, and the caller schedules a block.
        XCTAssertFalse(handOff.offer(job(3)))
    }

    /// The engine's stop reaches every category's spinning block through the executor.
    func testStoppingTheExecutorEndsEveryCategorysSpin() {
        let executor = makeExecutor()
        for category in [SegmentCategory.discovery, .content] {
            executor.deliver(DeliveryExecutor.Job(category: category, segments: [], notifyAll: true, generation: 1))
        }
        waitUntil { executor.queues.allSatisfy { $0.lane.handOff?.isSpinning == true } }
        XCTAssertEqual(executor.queues.map { $0.lane.handOff?.isSpinning }, [true, true], "both blocks spin after their delivery")
        executor.stop()
        for entry in executor.queues {
            let drained = DispatchSemaphore(value: 0)
            Thread {
                entry.lane.queue.sync {}
                drained.signal()
            }.start()
            XCTAssertEqual(drained.wait(timeout: .now() + 10), .success, "\(entry.category)'s block went on spinning")
        }
    }

    /// A block spinning for the next delivery has let go of the one it ran: the payload it held
    /// would otherwise be freed on that thread when the next delivery arrives, ahead of the next
    /// delivery's first callback.
    func testASpinningBlockHoldsNoPayloadOfTheDeliveryItHandedOver() {
        let counters = EngineCounters()
        let executor = makeExecutor(counters: counters)
        defer { executor.stop() }
        let spinning = { executor.queues.first?.lane.handOff?.isSpinning == true }
        executor.deliver(DeliveryExecutor.Job(category: .discovery, segments: [], notifyAll: true, generation: 1))
        waitUntil(spinning)
        XCTAssertTrue(spinning(), "the block spins after its first delivery")

        var payload = [Segment(id: "5f1d7a3b9c2e4d6f8a0b1c2d", segmentationId: "5f1d7a3b9c2e4d6f8a0b1c00")]
        executor.deliver(DeliveryExecutor.Job(category: .discovery, segments: payload, notifyAll: true, generation: 1))
        XCTAssertEqual(counters.deliveriesHandedOff.load(ordering: .relaxed), 1, "the delivery was handed to the spinning block")
        // Spinning again means the handed delivery has run (the block took it, then ran it).
        waitUntil(spinning)
        XCTAssertTrue(spinning(), "the block spins after the handed delivery")

        // Writing to a buffer someone else references copies it first.
        let before = payload.withUnsafeBufferPointer { $0.baseAddress }
        payload.withUnsafeMutableBufferPointer { _ in }
        XCTAssertEqual(
            payload.withUnsafeBufferPointer { $0.baseAddress }, before, "the spinning block still holds the payload it delivered")
    }

    /// A check's fetch readies the block: it spins before any delivery, and the check's delivery
    /// is handed to it rather than waking a thread after the fetch.
    func testABlockReadiedAsTheFetchStartsIsHandedTheChecksDelivery() {
        let counters = EngineCounters()
        let registry = CallbackRegistry()
        registry.add(SegmentCallbackData(category: .discovery, isIncludeFirstLoad: false) { _ in })
        let executor = makeExecutor(counters: counters, registry: registry)
        defer { executor.stop() }
        let spinning = { executor.queues.first?.lane.handOff?.isSpinning == true }
        executor.prepareForCheck()
        waitUntil(spinning)
        XCTAssertEqual(executor.queues.map(\.category), [.discovery], "the category with callbacks, and only it, is readied")
        XCTAssertTrue(spinning(), "the readied block spins with no delivery before it")
        // Already spinning: readying it again schedules nothing more.
        executor.prepareForCheck()
        executor.deliver(DeliveryExecutor.Job(category: .discovery, segments: [], notifyAll: true, generation: 1))
        XCTAssertEqual(counters.deliveriesHandedOff.load(ordering: .relaxed), 1, "the delivery was handed to the readied block")
        waitUntil(spinning)
        XCTAssertTrue(spinning(), "the block ran the delivery and spins for the next")
    }

    func testABlockIsReadiedOnlyWhenNoneIsQueuedOrSpinning() {
        let handOff = DeliveryHandOff(window: .seconds(2), counters: EngineCounters())
        XCTAssertTrue(handOff.prepare(), "idle: one block is counted for the caller to schedule")
        XCTAssertFalse(handOff.prepare(), "a readied block is queued already")
        XCTAssertFalse(handOff.offer(job(1)), "the readied block has not started: the delivery is queued behind it")
        handOff.blockStarted()
        // The readied block starts with a delivery queued behind it: it must not spin, or it
        // could be handed a later delivery ahead of the queued one.
        XCTAssertNil(handOff.awaitNext())
        handOff.blockStarted()
        XCTAssertTrue(handOff.prepare(), "idle again once the queued block started")
        handOff.blockStarted()
        handOff.close()
        XCTAssertFalse(handOff.prepare(), "nothing is readied after close()")
    }

    /// End to end: with a spin window, a check's fetch wakes its categories' delivery threads even
    /// when no delivery came before it and none follows (the response changes nothing), and they
    /// spin for it; without a window nothing spins.
    func testACheckReadiesItsCategoriesBlocksOnlyWithASpinWindow() {
        for window in [Duration.zero, .milliseconds(1)] {
            let fixture = Fixture { $0.deliverySpinWindow = window }
            fixture.transport.defaultResponse = response([:])
            _ = fixture.register(.discovery, tag: "d")
            fixture.startAndRunInitialCheck()
            XCTAssertEqual(fixture.recorder.segments(tag: "d"), [], "nothing changed, nothing delivered (window \(window))")
            if window == .zero {
                XCTAssertEqual(fixture.client.statistics.deliverySpinNanoseconds, 0)
            } else {
                waitUntil { fixture.client.statistics.deliverySpinNanoseconds > 0 }
                XCTAssertGreaterThan(fixture.client.statistics.deliverySpinNanoseconds, 0, "the check's fetch readied a block")
                XCTAssertEqual(fixture.client.statistics.deliveriesHandedOff, 0)
            }
        }
    }

    func testABlockDoesNotSpinWhileAnotherIsQueuedBehindIt() {
        let counters = EngineCounters()
        let handOff = DeliveryHandOff(window: .seconds(2), counters: counters)
        // Nobody spins: the offer is refused and counts a block the caller schedules.
        XCTAssertFalse(handOff.offer(job(1)))
        // The block that ran before it ends its delivery: it must not spin (and be handed a later
        // delivery ahead of the queued one); it returns at once despite the two-second window.
        XCTAssertNil(handOff.awaitNext())
        XCTAssertFalse(handOff.offer(job(2)), "no block spins: a second block is queued")
        handOff.blockStarted()
        XCTAssertNil(handOff.awaitNext(), "one block is still queued")
        handOff.blockStarted()
        XCTAssertEqual(counters.deliverySpinNanoseconds.load(ordering: .relaxed), 0, "nothing spun")
    }

    /// A block spinning on a hand-off with a 1,000 ns window, whose clock is a dial set to 0.
    private struct DialSpin {
        let clock: NanosecondDial
        let handOff: DeliveryHandOff
        let result = Locked<UInt64?>(nil)
        let done = DispatchSemaphore(value: 0)
    }

    private func startSpinningOnADial(counters: EngineCounters = EngineCounters(), file: StaticString = #filePath, line: UInt = #line) -> DialSpin {
        let clock = NanosecondDial()
        let spin = DialSpin(clock: clock, handOff: DeliveryHandOff(window: .nanoseconds(1_000), counters: counters, now: clock.read))
        startSpinning(spin.handOff, result: spin.result, done: spin.done, file: file, line: line)
        return spin
    }

    /// Offers `job` and asserts that the spinning block takes it and returns it.
    private func assertHandsOver(_ job: DeliveryExecutor.Job, to spin: DialSpin, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue(spin.handOff.offer(job), "the check's delivery is handed to the spinning block", file: file, line: line)
        XCTAssertEqual(spin.done.wait(timeout: .now() + 10), .success, file: file, line: line)
        XCTAssertEqual(spin.result.withLock { $0 }, job.generation, file: file, line: line)
    }

    /// A check's fetch that starts while a block still spins after the last delivery restarts
    /// that block's window: the check's delivery is handed over even when it comes after the
    /// window that began at the last delivery.
    func testAFetchStartingWhileABlockSpinsRestartsItsWindow() {
        let spin = startSpinningOnADial()
        let (clock, handOff) = (spin.clock, spin.handOff)
        clock.set(900)
        XCTAssertFalse(handOff.prepare(), "a block spins: no other is readied")
        // Two reads at 900 after the restart: the block has judged its window from 900 since.
        clock.waitForReadsAfterNow(2)
        clock.set(1_500)  // past the window that began at 0, inside the one that began at 900
        clock.waitForReadsAfterNow(3)
        XCTAssertTrue(handOff.isSpinning, "the block read the clock at 1,500 and still spins")
        assertHandsOver(job(4), to: spin)
    }

    /// The race of a restart with the window's end: the block has read its window's start (0)
    /// and is about to read the clock when the fetch restarts the window (at 900) and finds it
    /// spinning, so readies no other block; the block then reads 1,500, past the window it
    /// judged. It must spin on for the check's delivery, not leave it to a wake-up.
    func testARestartRacingTheWindowsEndKeepsTheBlockSpinning() {
        let spin = startSpinningOnADial()
        let (clock, handOff) = (spin.clock, spin.handOff)
        clock.holdNextRead()
        XCTAssertTrue(clock.waitUntilAReadIsHeld(), "the block reads the clock within 10 s")
        clock.set(900)
        XCTAssertFalse(handOff.prepare(), "the block spins: no other is readied")
        clock.set(1_500)
        clock.releaseHeldRead()
        clock.waitForReadsAfterNow(3)
        XCTAssertTrue(handOff.isSpinning, "the block judged the window from 0, then saw the restart and spins on")
        assertHandsOver(job(6), to: spin)
    }

    /// The restarted window ends one window after the restart, and the spin's time is counted
    /// once, from the block's start to its end; without a restart the window ends one window
    /// after the block started.
    func testARestartedWindowEndsOneWindowAfterTheFetchStarted() {
        let counters = EngineCounters()
        let spin = startSpinningOnADial(counters: counters)
        let (clock, handOff, result, done) = (spin.clock, spin.handOff, spin.result, spin.done)
        clock.set(900)
        XCTAssertFalse(handOff.prepare())
        clock.waitForReadsAfterNow(2)
        clock.set(1_899)
        clock.waitForReadsAfterNow(3)
        XCTAssertTrue(handOff.isSpinning, "inside the window that began at 900")
        clock.set(1_900)
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success, "the window that began at 900 ended at 1,900")
        XCTAssertEqual(result.withLock { $0 }, 0, "nothing was handed over")
        XCTAssertEqual(counters.deliverySpinNanoseconds.load(ordering: .relaxed), 1_900, "one spin, from 0 to 1,900")
        XCTAssertFalse(handOff.offer(job(5)), "nobody spins: the delivery is queued")

        clock.set(10_000)
        let second = DeliveryHandOff(window: .nanoseconds(1_000), counters: EngineCounters(), now: clock.read)
        let secondDone = DispatchSemaphore(value: 0)
        startSpinning(second, result: Locked<UInt64?>(nil), done: secondDone)
        clock.set(10_999)
        clock.waitForReadsAfterNow(3)
        XCTAssertTrue(second.isSpinning, "the window began when the block started, at 10,000")
        clock.set(11_000)
        XCTAssertEqual(secondDone.wait(timeout: .now() + 10), .success, "and ended one window later")
    }

    func testTheWindowEndsTheSpinAndItsTimeIsCounted() {
        let counters = EngineCounters()
        let handOff = DeliveryHandOff(window: .microseconds(200), counters: counters)
        XCTAssertNil(handOff.awaitNext())
        XCTAssertGreaterThanOrEqual(counters.deliverySpinNanoseconds.load(ordering: .relaxed), 200_000)
        // Idle again: the next offer is refused (nobody spins) rather than lost.
        XCTAssertFalse(handOff.offer(job(1)))
    }

    /// End to end: with a spin window, every check's change reaches the callback once, in order,
    /// whichever way each delivery started; without one nothing spins.
    func testDeliveriesWithASpinWindowArriveOnceAndInOrder() {
        for window in [Duration.zero, .milliseconds(10)] {
            let fixture = Fixture { $0.deliverySpinWindow = window }
            fixture.transport.defaultResponse = response([.discovery: [0]])
            _ = fixture.register(.discovery, tag: "d")
            fixture.startAndRunInitialCheck()
            for check in 1...40 {
                fixture.transport.defaultResponse = response([.discovery: [check]])
                fixture.client.segmentation.addCallback(callbackData: fixture.recorder.callback(.content, tag: "c\(check)"))
                fixture.settle()
                fixture.advance(.seconds(5))
            }
            XCTAssertEqual(fixture.recorder.segments(tag: "d"), (0...40).map { [segment($0)] }, "window \(window)")
            let statistics = fixture.client.statistics
            if window == .zero {
                XCTAssertEqual(statistics.deliveriesHandedOff, 0)
                XCTAssertEqual(statistics.deliverySpinNanoseconds, 0)
            } else {
                XCTAssertGreaterThan(statistics.deliverySpinNanoseconds, 0, "each delivery's block spun afterwards")
            }
        }
    }

    func testASpinWindowOutOfRangeIsBroughtIntoRangeWithAWarning() {
        for (asked, used, line) in [
            (Duration.seconds(1), Duration.milliseconds(10),
             "Segments: configuration deliverySpinWindow 1.0 seconds is out of range 0...0.01 seconds; using 0.01 seconds"),
            (.milliseconds(-1), .zero,
             "Segments: configuration deliverySpinWindow -0.001 seconds is out of range 0...0.01 seconds; using 0.0 seconds"),
        ] {
            let fixture = Fixture { $0.deliverySpinWindow = asked }
            XCTAssertEqual(fixture.client.configuration.deliverySpinWindow, used)
            XCTAssertTrue(fixture.logs.contains(line), "missing: \(line)\nlogged: \(fixture.logs.messages)")
        }
    }
}
