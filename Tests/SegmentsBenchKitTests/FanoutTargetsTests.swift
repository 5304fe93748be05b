import RealtimeSegments
@testable import SegmentsBenchKit
import XCTest

/// The completeness check behind `fanout-sweep`'s and `peers`' gated `incomplete` figures.
final class FanoutTargetsTests: XCTestCase {
    private let payload = FanoutProbe.payload(variant: 0)

    func testEveryCallbackCalledOnceIsComplete() {
        let targets = FanoutTargets(count: 4)
        let mark = targets.makeMark()
        targets.record(into: mark)
        for callback in targets.registrations { callback.onNewData(payload) }
        XCTAssertTrue(targets.eachCount(grewBy: payload.count, since: mark))
    }

    /// Callback 2 missed and callback 1 ran twice: the counts still add up, but the check fails.
    func testAMissAndADuplicateDoNotCancelOut() {
        let targets = FanoutTargets(count: 4)
        let mark = targets.makeMark()
        targets.record(into: mark)
        for index in [0, 1, 1, 3] { targets.registrations[index].onNewData(payload) }
        XCTAssertFalse(targets.eachCount(grewBy: payload.count, since: mark))
    }

    func testAMarkComparesWithTheMomentItWasRecorded() {
        let targets = FanoutTargets(count: 2)
        let mark = targets.makeMark()
        for callback in targets.registrations { callback.onNewData(payload) }
        targets.record(into: mark)
        for callback in targets.registrations { callback.onNewData(payload) }
        XCTAssertTrue(targets.eachCount(grewBy: payload.count, since: mark))
        XCTAssertFalse(targets.eachCount(grewBy: 2 * payload.count, since: mark))
    }

    /// The registrations are what the engine registers: one category, no first load, distinct identities.
    func testRegistrationsAreDistinctDiscoveryCallbacksWithoutFirstLoad() {
        let targets = FanoutTargets(count: 4)
        XCTAssertEqual(targets.registrations.count, 4)
        XCTAssertTrue(targets.registrations.allSatisfy { $0.category == .discovery && !$0.isIncludeFirstLoad })
        XCTAssertEqual(Set(targets.registrations.map(\.id)).count, 4)
    }

    /// The floor's closures are the registrations' own, index for index: half called one way and half
    /// the other, every counter grew once.
    func testTheFloorsClosuresAreTheRegistrations() {
        let targets = FanoutTargets(count: 4)
        XCTAssertEqual(targets.closures.count, 4)
        let mark = targets.makeMark()
        targets.record(into: mark)
        targets.closures[0].call(payload)
        targets.closures[1].call(payload)
        targets.registrations[2].onNewData(payload)
        targets.registrations[3].onNewData(payload)
        XCTAssertTrue(targets.eachCount(grewBy: payload.count, since: mark))
    }

    /// Armed, the registration that completes the last group stamps the time and releases the wait;
    /// one callback short, the wait times out.
    func testRegistrationsSignalTheLastCallback() {
        let targets = FanoutTargets(count: 130)
        targets.arm()
        for registration in targets.registrations.dropLast() { registration.onNewData(payload) }
        XCTAssertFalse(targets.waitForLastCallback(timeout: .zero))
        XCTAssertNotEqual(targets.firstAt, 0)
        XCTAssertEqual(targets.lastAt, 0)
        targets.registrations[129].onNewData(payload)
        XCTAssertTrue(targets.waitForLastCallback(timeout: .zero))
        XCTAssertNotEqual(targets.lastAt, 0)
    }
}
