import Foundation
import SegmentsMockServer
import XCTest

@testable import SegmentsBenchKit

/// `faults.lostEvents` counts events tracked that the server never stored: copies it stored more
/// than once (an upload stored, then timed out at the client and sent again) neither hide a lost
/// event nor count as one.
final class FaultsScenarioCountTests: XCTestCase {
    func testCopiesSentAgainAfterAClientTimeoutAreNotCountedAgainstLostEvents() throws {
        // Every upload is stored at once and answered after the client's 300 ms deadline.
        let slow = FaultProfile(latency: .fixed(.milliseconds(400)))
        let plan = FaultPlan(seed: 1, profiles: [.trackEvent: slow, .trackBatch: slow])
        var options = BenchOptions()
        options.duration = 1
        options.rate = 100
        options.transport = .http
        let result = try FaultsScenario(injecting: plan).run(options, progress: Progress(enabled: false))
        XCTAssertEqual(result.figure("faults.lostEvents")?.value, 0, "copies stored twice were counted against lost events")
        XCTAssertGreaterThan(result.figure("faults.duplicateEvents")?.value ?? 0, 0, "the copies are reported")
    }

    /// With no rules the mock answers every pull `[]`: a pull answered so did not fail, and is
    /// not counted as a failure.
    func testPullsAnsweredWithNoSegmentsAreNotCountedAsFailures() throws {
        var options = BenchOptions()
        options.duration = 1
        options.rate = 200
        let result = try FaultsScenario(injecting: FaultPlan(seed: 1, profiles: [:])).run(options, progress: Progress(enabled: false))
        let failures = try XCTUnwrap(result.figure("faults.pullFailures"))
        XCTAssertEqual(failures.value, 0, "pulls the mock answered were counted as failed fetches")
    }

    /// An engine that refuses some events (here every 100th call throws) reads no lost events,
    /// which count what was accepted: the refusals are counted.
    func testTrackEventCallsThatThrowAreCounted() throws {
        var options = BenchOptions()
        options.duration = 1
        options.rate = 200
        options.engine = LeakingEngine.factory(leaking: .refusals)
        let result = try FaultsScenario(injecting: FaultPlan(seed: 1, profiles: [:])).run(options, progress: Progress(enabled: false))
        XCTAssertGreaterThan(try XCTUnwrap(result.figure("faults.trackFailures")).value, 0)
        XCTAssertEqual(result.figure("faults.lostEvents")?.value, 0, "what was accepted was stored")
    }
}
