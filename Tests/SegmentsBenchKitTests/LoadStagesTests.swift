import SegmentsBenchKit
import XCTest

final class LoadStagesTests: XCTestCase {
    func testStagesParseAsDurationTargetPairsRampingFromZero() throws {
        let stages = try LoadStages.parse("10s:2000,30s:2000, 500ms:0,1.5m:10")
        XCTAssertEqual(stages.startRate, 0)
        XCTAssertEqual(stages.stages, [
            .init(seconds: 10, targetRate: 2000), .init(seconds: 30, targetRate: 2000),
            .init(seconds: 0.5, targetRate: 0), .init(seconds: 90, targetRate: 10),
        ])
        XCTAssertEqual(stages.totalSeconds, 130.5, accuracy: 1e-9)
        XCTAssertEqual(stages.peakRate, 2000)
    }

    func testTheRateRampsLinearlyBetweenTargets() throws {
        let stages = try LoadStages.parse("10s:2000,30s:2000,10s:0")
        XCTAssertEqual(stages.rate(at: 0), 0)
        XCTAssertEqual(stages.rate(at: 5), 1000, accuracy: 1e-9)
        XCTAssertEqual(stages.rate(at: 20), 2000, accuracy: 1e-9)
        XCTAssertEqual(stages.rate(at: 45), 1000, accuracy: 1e-9)
        XCTAssertEqual(stages.rate(at: 50), 0)
        XCTAssertEqual(stages.expectedArrivals, 10_000 + 60_000 + 10_000, accuracy: 1e-6)
    }

    func testAConstantRateHoldsFromTheStart() {
        let constant = LoadStages.constant(rate: 300, seconds: 4)
        XCTAssertEqual(constant.rate(at: 0), 300)
        XCTAssertEqual(constant.rate(at: 3.9), 300)
        XCTAssertEqual(constant.expectedArrivals, 1200, accuracy: 1e-9)
    }

    func testMalformedStagesAreRefusedWithTheReason() {
        let cases: [(String, LoadStagesError)] = [
            ("", .empty),
            ("10s", .malformedPair("10s")),
            ("10s:20:30", .malformedPair("10s:20:30")),
            ("10:2000", .badDuration(pair: "10:2000", duration: "10")),
            ("0s:2000", .badDuration(pair: "0s:2000", duration: "0s")),
            ("-5s:2000", .badDuration(pair: "-5s:2000", duration: "-5s")),
            ("10h:2000", .badDuration(pair: "10h:2000", duration: "10h")),
            ("10s:-1", .badTarget(pair: "10s:-1", target: "-1")),
            ("10s:fast", .badTarget(pair: "10s:fast", target: "fast")),
            ("10s:nan", .badTarget(pair: "10s:nan", target: "nan")),
            ("10s:1e3", .badTarget(pair: "10s:1e3", target: "1e3")),
            ("10s:100,", .malformedPair("")),
        ]
        for (text, expected) in cases {
            XCTAssertThrowsError(try LoadStages.parse(text), text) { error in
                XCTAssertEqual(error as? LoadStagesError, expected, text)
                XCTAssertTrue("\(error)".hasPrefix("--stages"), "\(error)")
            }
        }
    }
}

/// `--stages` refuses what `--rate` and `--duration` refuse, a rate over 1e9/s and a run over 30
/// days: past those a schedule overflows the run's nanosecond arithmetic, or its Poisson gaps fall
/// under the schedule clock's resolution and the run never ends.
final class LoadStagesLimitsTests: XCTestCase {
    func testARateAboveWhatRateAcceptsIsRefused() {
        XCTAssertThrowsError(try LoadStages.parse("1s:100000000000000000000")) { error in
            XCTAssertEqual(error as? LoadStagesError, .badTarget(pair: "1s:100000000000000000000", target: "100000000000000000000"))
        }
        XCTAssertThrowsError(try LoadStages.parse("1s:1000000001"))
        XCTAssertNoThrow(try LoadStages.parse("1s:1000000000"))
    }

    func testAScheduleLongerThanWhatDurationAcceptsIsRefused() {
        XCTAssertThrowsError(try LoadStages.parse("20000000000s:1"))
        XCTAssertThrowsError(try LoadStages.parse("2000000s:1,2000000s:1"), "two stages over 30 days in all")
        XCTAssertNoThrow(try LoadStages.parse("2592000s:1"))
    }
}
