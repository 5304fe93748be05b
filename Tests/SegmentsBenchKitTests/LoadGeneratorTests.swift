import Foundation
@testable import SegmentsBenchKit
import Synchronization
import XCTest

/// The load generator's schedules: how many operations a paced run performs does not depend on how
/// fast the machine is, only on the rate, the duration and the burst size.
final class LoadGeneratorTests: XCTestCase {
    func testBurstsKeepTheRateAndRecordEveryCall() {
        // 20,000/s for 0.1 s in bursts of 100: 20 bursts of 100 per producer.
        let outcome = LoadGenerator.run(producers: 2, seconds: 0.1, ratePerProducer: 20_000, fromScheduledStart: false, burst: 100) { _, _ in }
        XCTAssertEqual(outcome.operations, 4_000)
        XCTAssertEqual(outcome.latency.count, 4_000)
        XCTAssertFalse(outcome.corrected)
    }

    func testBurstsOfOneFollowTheSpinningSchedule() {
        let outcome = LoadGenerator.run(producers: 1, seconds: 0.05, ratePerProducer: 10_000, fromScheduledStart: false) { _, _ in }
        XCTAssertEqual(outcome.operations, 500)
    }

    /// A rate the operation cannot keep still performs every scheduled operation, but the run
    /// takes longer than its schedule, and the outcome says how long: the rate achieved is the
    /// operations over that time, not over the schedule.
    func testARunBehindItsScheduleReportsTheTimeItTook() {
        // 1,000/s for 0.1 s is 100 operations; each takes at least 2 ms, so at least 0.2 s.
        let outcome = LoadGenerator.run(producers: 1, seconds: 0.1, ratePerProducer: 1_000) { _, _ in usleep(2_000) }
        XCTAssertEqual(outcome.operations, 100)
        XCTAssertGreaterThanOrEqual(outcome.elapsedSeconds, 0.2)
        XCTAssertLessThanOrEqual(Double(outcome.operations) / outcome.elapsedSeconds, 500)
    }

    /// The same for the open model: arrivals that come late are still issued, and the time they
    /// took is reported.
    func testAnOpenRunBehindItsScheduleReportsTheTimeItTook() throws {
        let stages = try LoadStages.parse("0.1s:1000,0.1s:1000")
        let outcome = LoadGenerator.runOpen(generators: 1, streams: [stages], seed: 1) { _, _, _, _ in usleep(2_000) }
        let operations = try XCTUnwrap(outcome.operations.first)
        XCTAssertGreaterThan(operations, 50)
        XCTAssertGreaterThanOrEqual(outcome.elapsedSeconds, Double(operations) * 0.002)
    }

    /// An open run that cannot keep up stops issuing its late arrivals `gracefulStop` after the
    /// schedule's end, and counts those it never issued (k6's dropped iterations): `--rate 1e9`
    /// must end, not work through two billion arrivals.
    func testAnOpenRunFarBehindStopsAfterItsGracefulStopAndCountsWhatItDropped() throws {
        let stages = LoadStages.constant(rate: 1_000, seconds: 0.2)  // 200 arrivals expected
        let outcome = LoadGenerator.runOpen(generators: 1, streams: [stages], seed: 5, gracefulStop: 0.1) { _, _, _, _ in
            usleep(50_000)  // 50 ms each: about 6 fit before the stop
        }
        let issued = try XCTUnwrap(outcome.operations.first)
        let dropped = try XCTUnwrap(outcome.dropped.first)
        XCTAssertLessThan(issued, 50, "kept issuing late arrivals past the graceful stop")
        XCTAssertLessThan(outcome.elapsedSeconds, 5, "2.5 s past the schedule without the graceful stop: 200 × 50 ms")
        XCTAssertEqual(Double(issued + dropped), 200, accuracy: 45, "issued \(issued) + dropped \(dropped) ≈ the 200 expected")
    }

    func testTheExpectedArrivalsAfterATimeAreTheAreaUnderTheRestOfTheSchedule() throws {
        let stages = try LoadStages.parse("10s:100,10s:100,10s:0")  // 0 → 100 over 10 s, 100, 100 → 0
        XCTAssertEqual(stages.expectedArrivals(after: 0), stages.expectedArrivals, accuracy: 1e-9)
        XCTAssertEqual(stages.expectedArrivals(after: 0), 2_000, accuracy: 1e-9)
        XCTAssertEqual(stages.expectedArrivals(after: 5), 2_000 - 125, accuracy: 1e-9)
        XCTAssertEqual(stages.expectedArrivals(after: 25), 125, accuracy: 1e-9)
        XCTAssertEqual(stages.expectedArrivals(after: 30), 0, accuracy: 1e-9)
    }

    /// A flat-out sample is the call alone, not the call plus the recording of the sample before
    /// it. The clock's time passes only where the test says: 10 µs inside each call, 1 µs at each
    /// read, and 1 ms in the generator's own work after a call's end is read (where it records).
    func testAFlatOutSampleIsTheCallAloneNotTheRecordingBeforeIt() {
        let clock = DrivenClock()
        let outcome = LoadGenerator.run(
            producers: 1, seconds: 0.05, ratePerProducer: nil, fromScheduledStart: true, burst: 1, clock: { clock.read() }
        ) { _, _ in clock.call() }
        let latency = outcome.latency.summary("call", definition: "")
        XCTAssertGreaterThan(outcome.operations, 10)
        XCTAssertLessThan(latency.max, 100_000, "p50 \(latency.p50) ns: the 1 ms after each call's end was counted in the next call")
    }

    /// The open model files an arrival that returns after the schedule's end in its last interval
    /// too (here one of the last arrivals is held 0.6 s, past the one-second interval, and those
    /// after it are late).
    func testAnOpenArrivalReturningAfterTheEndStaysInTheLastInterval() throws {
        let stages = try LoadStages.parse("1ms:50,999ms:50")  // at 50/s at once, for a second in all
        let first = Mutex<UInt64?>(nil)
        let held = Mutex(false)
        let outcome = LoadGenerator.runOpen(generators: 1, streams: [stages], seed: 3) { _, _, intended, _ in
            let origin = first.withLock { first in
                if first == nil { first = intended }
                return first!
            }
            guard intended &- origin > 800_000_000, !held.withLock({ held in defer { held = true }; return held }) else { return }
            usleep(600_000)
        }
        let intervals = try XCTUnwrap(outcome.latency.first?.intervals)
        XCTAssertEqual(intervals.histograms.map(\.totalCount), [UInt64(try XCTUnwrap(outcome.operations.first))])
    }

    /// A call that starts before the phase ends belongs to the phase's last interval, however late
    /// it returns: filed at its return, it opened an interval past the end whose rate was its count
    /// over the few microseconds until the phase finished.
    func testACallEndingAfterThePhaseStaysInItsLastInterval() throws {
        let clock = SteppingClock(step: 400_000_000)
        let outcome = LoadGenerator.run(
            producers: 1, seconds: 1, ratePerProducer: nil, fromScheduledStart: true, burst: 1, clock: { clock.read() }
        ) { _, _ in }
        let intervals = try XCTUnwrap(outcome.latency.intervals)
        XCTAssertEqual(intervals.histograms.map(\.totalCount), [UInt64(outcome.operations)])
    }
}

/// A clock that moves `step` nanoseconds at every read.
private final class SteppingClock: Sendable {
    private let now = Mutex<UInt64>(0)
    private let step: UInt64

    init(step: UInt64) {
        self.step = step
    }

    func read() -> UInt64 {
        now.withLock { now in
            now += step
            return now
        }
    }
}

/// A clock whose time moves only as ``LoadGeneratorTests`` says: 1 µs per read, 10 µs per call, and
/// 1 ms of other work after the first read that follows a call, before whatever comes next.
private final class DrivenClock: Sendable {
    private struct State {
        var now: UInt64 = 1_000_000_000
        var readsSinceCall = 0
    }

    private let state = Mutex(State())

    func read() -> UInt64 {
        state.withLock { state in
            state.readsSinceCall += 1
            if state.readsSinceCall == 2 { state.now += 1_000_000 }
            state.now += 1_000
            return state.now
        }
    }

    func call() {
        state.withLock { state in
            if state.readsSinceCall == 1 { state.now += 1_000_000 }
            state.now += 10_000
            state.readsSinceCall = 0
        }
    }
}
