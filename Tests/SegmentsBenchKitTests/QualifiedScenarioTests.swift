@testable import SegmentsBenchKit
import XCTest

final class QualifiedScenarioTests: XCTestCase {
    /// `--callbacks` (the number of users) accepts 1: the skewed mix then has no users outside the
    /// hot fifth, and every call goes to the one user instead of dividing by zero.
    func testASingleUserRunsEveryPhaseWithoutAFailure() throws {
        var options = BenchOptions()
        options.quick = true
        options.callbacks = 1
        let result = try QualifiedScenario().run(options, progress: Progress(enabled: false))
        XCTAssertEqual(result.figure("qualified.failures")?.value, 0)
        XCTAssertEqual(result.figure("qualified.wrongAnswers")?.value, 0)
    }
}
