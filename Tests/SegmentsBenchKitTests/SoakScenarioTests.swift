import XCTest

import SegmentsBenchCLI
@testable import SegmentsBenchKit

/// `soak` compares memory at the end with a sample taken after warm-up, once a second: a run too
/// short for three samples would report no growth figure at all, a silent "no data".
final class SoakScenarioTests: XCTestCase {
    func testADurationTooShortForThreeMemorySamplesIsRefusedNamingTheMinimum() throws {
        var options = BenchOptions()
        options.duration = 1.5
        let refusal = try XCTUnwrap(SoakScenario().refusal(of: options), "a 1.5 s soak measures no growth")
        XCTAssertEqual(
            refusal,
            "scenario 'soak' needs --duration of at least 3 seconds, not 1.5: it samples memory once a second and compares the last sample with the one after warm-up")
        options.duration = 3
        XCTAssertNil(SoakScenario().refusal(of: options))
        options.duration = nil
        options.quick = true
        XCTAssertNil(SoakScenario().refusal(of: options), "the quick default (10 s) is long enough")
    }
}

/// The refusal through the command line: a usage error (64) before anything runs.
final class SoakCommandLineTests: XCTestCase {
    func testRunSoakWithADurationTooShortIsAUsageError() throws {
        do {
            try SegmentsBenchCLI.run(["run", "soak", "--duration", "1"], registry: ScenarioRegistry())
            XCTFail("a 1 s soak was accepted")
        } catch {
            XCTAssertEqual(SegmentsBenchCLI.exitStatus(for: error), 64)
            XCTAssertTrue(SegmentsBenchCLI.message(for: error).contains("needs --duration of at least 3 seconds, not 1"),
                          SegmentsBenchCLI.message(for: error))
        }
    }
}
