import Dispatch
import Foundation
import XCTest

@testable import RealtimeSegments
import RealtimeSegmentsTesting

/// An app's own ``SegmentsClock`` implements `now()` and `wallClockSeconds()` only; the engine
/// waits for its deadlines on real time.
final class AppClockTests: XCTestCase {
    /// An app's clock: real speed, instants about 11.6 days ahead of uptime. An engine that took
    /// its instants for uptime would sleep for those days.
    private struct AheadOfUptimeClock: SegmentsClock {
        static let lead: UInt64 = 1_000_000_000_000_000

        func now() -> SegmentsInstant {
            SegmentsInstant(nanoseconds: DispatchTime.now().uptimeNanoseconds + Self.lead)
        }

        func wallClockSeconds() -> Double { Date().timeIntervalSince1970 }
    }

    /// An app's clock that does not implement `continuousNow()` ages caches on its `now()`.
    func testAnAppClockWithoutAContinuousReadingAgesCachesOnItsNow() {
        let clock = AheadOfUptimeClock()
        let continuous = clock.continuousNow().nanoseconds
        XCTAssertGreaterThanOrEqual(continuous, AheadOfUptimeClock.lead)
        XCTAssertLessThanOrEqual(continuous, clock.now().nanoseconds)
    }

    /// The system clock's reading for cache ages never goes back, and moves at real speed.
    func testTheSystemClocksContinuousReadingMovesForward() {
        let clock = SystemClock()
        // The uptime reads enclose the continuous ones, so only a sleep could put them further apart.
        let uptimeBefore = clock.now()
        let first = clock.continuousNow()
        usleep(2_000)
        let second = clock.continuousNow()
        let uptimeAfter = clock.now()
        XCTAssertGreaterThanOrEqual(second.nanoseconds - first.nanoseconds, 2_000_000)
        // Within a second of uptime's own step (no sleep happened in between).
        XCTAssertLessThan(second.nanoseconds - first.nanoseconds, uptimeAfter.nanoseconds - uptimeBefore.nanoseconds + 1_000_000_000)
    }

    func testTheEngineSleepsUntilTheDeadlineOfAnAppClockOnRealTime() {
        let clock = AheadOfUptimeClock()
        let wakeup = EngineWakeup()
        let deadline = clock.now() + .milliseconds(20)
        let returned = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            wakeup.wait(until: deadline, on: clock)
            returned.signal()
        }
        XCTAssertEqual(returned.wait(timeout: .now() + 10), .success, "the wait ends when the clock's deadline passes")
        XCTAssertGreaterThanOrEqual(clock.now(), deadline, "and not before, without a signal")
    }

    func testASignalEndsTheEnginesSleepOnAnAppClock() {
        let clock = AheadOfUptimeClock()
        let wakeup = EngineWakeup()
        let returned = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            wakeup.wait(until: clock.now() + .seconds(3_600), on: clock)
            returned.signal()
        }
        wakeup.signal()
        XCTAssertEqual(returned.wait(timeout: .now() + 10), .success)
    }

    func testAClientOnAnAppClockRunsItsDebounceOnRealTime() {
        let transport = InMemorySegmentsTransport()
        var configuration = SegmentsConfiguration(projectToken: "t", transport: transport)
        configuration.clock = AheadOfUptimeClock()
        // Longer than the engine's linger, so that the engine sleeps until the window closes.
        configuration.debounce = .milliseconds(100)
        let client = SegmentsClient(configuration: configuration)
        defer { client.stop() }
        // A listener, so that the window that opens at start ends in a check.
        client.segmentation.addCallback(
            callbackData: SegmentCallbackData(category: .discovery, isIncludeFirstLoad: false) { _ in })
        client.start()
        waitUntil { transport.fetchCount == 1 }
        XCTAssertTrue(client.waitUntilIdle())
    }
}

/// Waits on a `DispatchTime` deadline (`stop(timeout:)`, `waitUntilIdle(timeout:)`) last the whole
/// duration: built from the uptime, not from an `Int` of nanoseconds (32 bits on Apple Watch).
final class WaitDeadlineTests: XCTestCase {
    func testADeadlineIsTheWholeDurationAwayAndSaturates() {
        let before = DispatchTime.now().uptimeNanoseconds
        let deadline = DispatchTime.after(.seconds(30)).uptimeNanoseconds
        let after = DispatchTime.now().uptimeNanoseconds
        XCTAssertGreaterThanOrEqual(deadline, before + 30_000_000_000)
        XCTAssertLessThanOrEqual(deadline, after + 30_000_000_000)
        XCTAssertEqual(DispatchTime.after(.seconds(Int64.max)), .distantFuture)
        // 400 years does not overflow 64 bits of nanoseconds, but is past the raw values the clock holds.
        XCTAssertEqual(DispatchTime.after(.seconds(400 * 365 * 86_400)), .distantFuture)
        XCTAssertLessThanOrEqual(DispatchTime.after(.seconds(-5)).uptimeNanoseconds, DispatchTime.now().uptimeNanoseconds)
    }
}
