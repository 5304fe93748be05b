import Foundation
import SegmentsBenchKit
import Synchronization
import XCTest

/// Options that set long intervals end the run when its duration is over, not an interval later:
/// a run that sat silent for the length of a `--debounce` or a switch interval looked hung.
/// (Each run gets a generous deadline on another thread; only a run that waits out its interval
/// misses it.)
final class LongIntervalOptionTests: XCTestCase {
    private func runWithin(_ seconds: Int, _ body: @escaping @Sendable () throws -> ScenarioResult) -> ScenarioResult? {
        let done = DispatchSemaphore(value: 0)
        let outcome = Outcome()
        Thread.detachNewThread {
            let result = try? body()
            outcome.value.withLock { $0 = result }
            done.signal()
        }
        guard done.wait(timeout: .now() + .seconds(seconds)) == .success else { return nil }
        return outcome.value.withLock { $0 }
    }

    /// One switch every 200 s, in a run of half a second.
    func testASlowSwitchRateEndsWithTheRun() throws {
        let result = runWithin(60) {
            var options = BenchOptions()
            options.duration = 0.5
            options.switchRate = 0.005
            return try CustomerSwitchScenario().run(options, progress: Progress(enabled: false))
        }
        XCTAssertNotNil(result, "the run went on for its switch interval (200 s) after its half second")
    }

    /// A debounce of 300 s: the check after the last uploads is 15 minutes away. (A quick run of
    /// the whole scenario in a debug build takes seconds; 400 s tells it from 900.)
    func testADebounceLongerThanTheRunLeavesTheCheckAfterUploadsOutWithANote() throws {
        let result = runWithin(400) {
            var options = BenchOptions()
            options.quick = true
            options.duration = 0.2
            options.debounce = 300
            return try TrackingStormScenario().run(options, progress: Progress(enabled: false))
        }
        let finished = try XCTUnwrap(result, "the run waited for a check three debounces (15 minutes) away")
        XCTAssertNil(finished.figure("tracking-storm.uploadsNeverFollowedByAFetch"))
        XCTAssertTrue(finished.notes.contains { $0.contains("was not waited for") }, "\(finished.notes)")
    }
}

private final class Outcome: Sendable {
    let value = Mutex<ScenarioResult?>(nil)
}
