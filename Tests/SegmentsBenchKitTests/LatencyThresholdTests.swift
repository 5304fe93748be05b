import SegmentsBenchKit
import XCTest

final class LatencyThresholdTests: XCTestCase {
    private let metrics = ["change-to-callback", "fetch"]

    func testAThresholdParsesStatisticMetricComparisonAndLimit() throws {
        let p99 = try LatencyThreshold.parse("p99(change-to-callback)<500ms", metrics: metrics)
        XCTAssertEqual(p99.statistic, .percentile(99))
        XCTAssertEqual(p99.metric, "change-to-callback")
        XCTAssertFalse(p99.inclusive)
        XCTAssertEqual(p99.limitNanoseconds, 500_000_000)
        let max = try LatencyThreshold.parse("max(fetch)<=2s", metrics: metrics)
        XCTAssertEqual(max.statistic, .max)
        XCTAssertTrue(max.inclusive)
        XCTAssertEqual(max.limitNanoseconds, 2e9)
        XCTAssertEqual(try LatencyThreshold.parse("p99.9(fetch)<250us", metrics: metrics).statistic, .percentile(99.9))
        XCTAssertEqual(try LatencyThreshold.parse("mean(fetch)<7ns", metrics: metrics).limitNanoseconds, 7)
    }

    /// Spaces, as k6 users write them, are ignored (`p99(fetch) < 5ms` was refused: "the limit
    /// must follow < or <="); the threshold keeps its text without them.
    func testSpacesInAThresholdAreIgnored() throws {
        let spaced = try LatencyThreshold.parse(" p99 (fetch) <= 5 ms ", metrics: metrics)
        XCTAssertEqual(spaced.statistic, .percentile(99))
        XCTAssertEqual(spaced.metric, "fetch")
        XCTAssertTrue(spaced.inclusive)
        XCTAssertEqual(spaced.limitNanoseconds, 5_000_000)
        XCTAssertEqual(spaced.text, "p99(fetch)<=5ms", "one setting, however it was spaced")
        XCTAssertEqual(try LatencyThreshold.parse("avg(fetch) < 2s", metrics: metrics).statistic, .mean)
    }

    func testMalformedThresholdsAreRefusedWithTheReason() {
        let cases: [(String, LatencyThresholdError)] = [
            ("p99<5ms", .malformed("p99<5ms")),
            ("q99(fetch)<5ms", .badStatistic(text: "q99(fetch)<5ms", statistic: "q99")),
            ("p100(fetch)<5ms", .badStatistic(text: "p100(fetch)<5ms", statistic: "p100")),
            ("p99(upload)<5ms", .unknownMetric(text: "p99(upload)<5ms", metric: "upload", known: ["change-to-callback", "fetch"])),
            ("p99(fetch)>5ms", .badComparison("p99(fetch)>5ms")),
            ("p99(fetch)<5", .badLimit(text: "p99(fetch)<5", limit: "5")),
            ("p99(fetch)<-5ms", .badLimit(text: "p99(fetch)<-5ms", limit: "-5ms")),
            ("p99(fetch) > 5 ms", .badComparison("p99(fetch) > 5 ms")),
            ("p99(fetch)<5 0ms", .malformed("p99(fetch)<5 0ms")),
        ]
        for (text, expected) in cases {
            XCTAssertThrowsError(try LatencyThreshold.parse(text, metrics: metrics), text) { error in
                XCTAssertEqual(error as? LatencyThresholdError, expected, text)
                XCTAssertTrue("\(error)".hasPrefix("--threshold '\(text)'"), "\(error)")
            }
        }
    }

    func testAThresholdPassesOnlyBelowItsLimit() throws {
        var recorder = LatencyRecorder()
        for value in 1...100 { recorder.record(UInt64(value) * 1_000_000) }
        let p50 = try LatencyThreshold.parse("p50(fetch)<60ms", metrics: metrics).evaluate(recorder)
        XCTAssertTrue(p50.passed)
        XCTAssertEqual(try XCTUnwrap(p50.measuredNanoseconds), 50_000_000, accuracy: 1_000_000)
        XCTAssertFalse(try LatencyThreshold.parse("max(fetch)<50ms", metrics: metrics).evaluate(recorder).passed)
        XCTAssertTrue(try LatencyThreshold.parse("max(fetch)<1s", metrics: metrics).evaluate(recorder).passed)
        XCTAssertTrue(try LatencyThreshold.parse("p99(fetch)<=100ms", metrics: metrics).evaluate(recorder).passed)
    }

    /// The verdict line shows the measured value in a unit that keeps its digits: 600 ns is not
    /// "0.001 ms".
    func testTheMeasuredValueIsShownInAUnitThatFitsIt() throws {
        var recorder = LatencyRecorder()
        recorder.record(600)
        let fast = try LatencyThreshold.parse("max(fetch)<1ms", metrics: metrics).evaluate(recorder)
        XCTAssertTrue(fast.description.contains("measured 600 ns"), fast.description)
        var slow = LatencyRecorder()
        slow.record(1_234_000_000)
        let outcome = try LatencyThreshold.parse("max(fetch)<1s", metrics: metrics).evaluate(slow)
        XCTAssertTrue(outcome.description.contains("measured 1.234 s"), outcome.description)
        var justOver = LatencyRecorder()
        justOver.record(5_004_000)
        let over = try LatencyThreshold.parse("max(fetch)<5ms", metrics: metrics).evaluate(justOver)
        XCTAssertTrue(over.description.contains("FAILED (measured 5.004 ms)"), "a miss must not read as the limit: \(over.description)")
    }

    func testAMetricWithoutSamplesFailsItsThreshold() throws {
        let threshold = try LatencyThreshold.parse("p99(fetch)<1s", metrics: metrics)
        XCTAssertFalse(threshold.evaluate(LatencyRecorder()).passed)
        XCTAssertFalse(threshold.evaluate(nil).passed)
        XCTAssertTrue(threshold.evaluate(nil).description.contains("FAILED (no samples)"))
    }

    /// A p99.9 of 50 samples is their maximum under another name: the threshold is not measured
    /// (and fails), as the report shows `—` for it.
    func testAPercentileTheSamplesCannotHoldIsNotMeasured() throws {
        var recorder = LatencyRecorder()
        for milliseconds in 1...50 { recorder.record(UInt64(milliseconds) * 1_000_000) }
        let outcome = try LatencyThreshold.parse("p99.9(fetch)<60ms", metrics: metrics).evaluate(recorder)
        XCTAssertNil(outcome.measuredNanoseconds)
        XCTAssertFalse(outcome.passed)
        XCTAssertTrue(outcome.description.contains("too few samples"), outcome.description)
        XCTAssertTrue(try LatencyThreshold.parse("p90(fetch)<60ms", metrics: metrics).evaluate(recorder).passed, "50 samples hold a p90")
        var one = LatencyRecorder()
        one.record(1_000_000)
        XCTAssertTrue(try LatencyThreshold.parse("p50(fetch)<60ms", metrics: metrics).evaluate(one).passed, "the median holds from one sample up, as in the report")
    }
}

/// The recorder clamps every sample at 60 s: no limit a clamped sample could meet is accepted, so a
/// run whose latencies were 5 minutes cannot pass.
final class LatencyThresholdRangeTests: XCTestCase {
    func testALimitAboveTheRecordersRangeCannotPassAClampedSample() throws {
        var recorder = LatencyRecorder()
        recorder.record(300_000_000_000)  // 5 minutes, from an arrival's intended start
        let outcome = try? LatencyThreshold.parse("max(fetch)<120s", metrics: ["fetch"]).evaluate(recorder)
        XCTAssertNotEqual(outcome?.passed, true, "a 300 s latency passed a 120 s limit: \(outcome.map(\.description) ?? "refused")")
    }
}

/// `max(…)` judges the largest sample itself (kept exactly), not the top of its histogram bucket:
/// a run whose largest latency is exactly 100 ms passes `max(fetch)<=100ms`.
final class LatencyThresholdMaxTests: XCTestCase {
    func testMaxIsTheLargestSampleNotItsBucketsTop() throws {
        var recorder = LatencyRecorder()
        for value in 1...100 { recorder.record(UInt64(value) * 1_000_000) }  // 1 ms … exactly 100 ms
        let outcome = try LatencyThreshold.parse("max(fetch)<=100ms", metrics: ["fetch"]).evaluate(recorder)
        XCTAssertTrue(outcome.passed, outcome.description)
        XCTAssertEqual(outcome.measuredNanoseconds, 100_000_000)
    }
}

extension LatencyThresholdRangeTests {
    func testAClampedSampleCannotMeetAnInclusiveSixtySecondLimit() {
        var recorder = LatencyRecorder()
        recorder.record(300_000_000_000)
        for text in ["max(fetch)<=60s", "max(fetch)<60s", "p99(fetch)<=60s", "max(fetch)<=60000ms"] {
            let outcome = try? LatencyThreshold.parse(text, metrics: ["fetch"]).evaluate(recorder)
            XCTAssertNotEqual(outcome?.passed, true, text)
        }
    }
}
