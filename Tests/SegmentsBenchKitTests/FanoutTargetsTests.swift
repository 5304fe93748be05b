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
        for closure in targets.closures { closure(payload) }
        XCTAssertTrue(targets.eachCount(grewBy: payload.count, since: mark))
    }

    /// Callback 2 missed and callback 1 ran twice: the counts still add up, but the check fails.
    func testAMissAndADuplicateDoNotCancelOut() {
        let targets = FanoutTargets(count: 4)
        let mark = targets.makeMark()
        targets.record(into: mark)
        for index in [0, 1, 1, 3] { targets.closures[index](payload) }
        XCTAssertFalse(targets.eachCount(grewBy: payload.count, since: mark))
    }

    func testAMarkComparesWithTheMomentItWasRecorded() {
        let targets = FanoutTargets(count: 2)
        let mark = targets.makeMark()
        for closure in targets.closures { closure(payload) }
        targets.record(into: mark)
        for closure in targets.closures { closure(payload) }
        XCTAssertTrue(targets.eachCount(grewBy: payload.count, since: mark))
        XCTAssertFalse(targets.eachCount(grewBy: 2 * payload.count, since: mark))
    }
}
