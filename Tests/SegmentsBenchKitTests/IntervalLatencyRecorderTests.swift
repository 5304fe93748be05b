import Foundation
import Histogram
@testable import SegmentsBenchKit
import XCTest

/// Recording by interval: values land in the interval of their time, the intervals add up to the
/// whole histogram, and merging keeps them only while they still add up.
final class IntervalLatencyRecorderTests: XCTestCase {
    private let second: UInt64 = 1_000_000_000

    func testValuesLandInTheIntervalOfTheirTime() {
        var recorder = IntervalLatencyRecorder(origin: 10 * second, expectedIntervals: 4)
        recorder.record(100, at: 9 * second)  // before the origin: interval 0
        recorder.record(200, at: 10 * second)
        recorder.record(300, at: 11 * second - 1)
        recorder.record(400, at: 11 * second)
        recorder.record(500, at: 13 * second + 5)  // skips interval 2
        let finished = recorder.finish(startTime: 1_700_000_000)
        let intervals = try! XCTUnwrap(finished.intervals)
        XCTAssertEqual(intervals.startTime, 1_700_000_000)
        XCTAssertEqual(intervals.intervalSeconds, 1)
        XCTAssertEqual(intervals.histograms.map(\.totalCount), [3, 1, 0, 1])
        XCTAssertEqual(intervals.histograms[1].countForValue(400), 1)
        XCTAssertEqual(finished.count, 5)
        XCTAssertEqual(intervals.total, finished.histogram)
    }

    func testProducersOfOnePhaseMergeIntervalByInterval() {
        var first = IntervalLatencyRecorder(origin: 0, expectedIntervals: 3)
        var second = IntervalLatencyRecorder(origin: 0, expectedIntervals: 3)
        first.record(10, at: 0)
        second.record(20, at: 1)
        second.record(30, at: 2 * self.second)
        var merged = LatencyRecorder()
        merged.merge(first.finish(startTime: 5))
        merged.merge(second.finish(startTime: 5))
        XCTAssertEqual(merged.intervals?.histograms.map(\.totalCount), [2, 0, 1])
        XCTAssertEqual(merged.count, 3)

        var empty = LatencyRecorder()
        empty.merge(LatencyRecorder())
        merged.merge(empty)
        XCTAssertNotNil(merged.intervals, "an empty recorder changes nothing")

        var plain = LatencyRecorder()
        plain.record(40)
        merged.merge(plain)
        XCTAssertNil(merged.intervals, "values without intervals would no longer add up")
        XCTAssertEqual(merged.count, 4)
    }

    func testIntervalsStartingAtDifferentTimesDoNotMerge() {
        var first = IntervalLatencyRecorder(origin: 0, expectedIntervals: 1)
        first.record(10, at: 0)
        var other = first
        other.record(20, at: 0)
        var merged = first.finish(startTime: 1)
        merged.merge(other.finish(startTime: 2))
        XCTAssertNil(merged.intervals)
        XCTAssertEqual(merged.count, 3)
    }

    func testRecordingPastThePlanStillCountsEverything() {
        var recorder = IntervalLatencyRecorder(origin: 0, intervalNanoseconds: 1_000_000, expectedIntervals: 1)
        for step in 0..<(IntervalLatencyRecorder.maximumSpares + 10) {
            recorder.record(UInt64(step + 1), at: UInt64(step) * 1_000_000)
        }
        let finished = recorder.finish(startTime: 0)
        XCTAssertEqual(finished.intervals?.histograms.count, IntervalLatencyRecorder.maximumSpares + 10)
        XCTAssertTrue(finished.intervals?.histograms.allSatisfy { $0.totalCount == 1 } == true)
    }

    func testTheSummaryCarriesTheIntervalsThroughJSON() throws {
        var recorder = IntervalLatencyRecorder(origin: 0, expectedIntervals: 2)
        for value in 1...500 { recorder.record(UInt64(value) * 1_000, at: UInt64(value % 2) * second) }
        let summary = recorder.finish(startTime: 1_700_000_000.25).summary("x", definition: "y")
        let data = try ReportWriter.makeJSONEncoder().encode(summary)
        let decoded = try ReportWriter.makeJSONDecoder().decode(LatencySummary.self, from: data)
        XCTAssertEqual(decoded.intervals.count, 1)
        XCTAssertEqual(decoded.intervals[0].startTime, 1_700_000_000.25)
        XCTAssertEqual(decoded.intervals[0].histograms, summary.intervals[0].histograms)
        XCTAssertEqual(decoded.intervals[0].total, decoded.histogram)
    }

    func testCorruptIntervalsInJSONAreADecodingError() {
        let json = #"{"name":"x","count":1,"p50":1,"max":1,"mean":1,"intervals":[{"startTime":0,"intervalSeconds":1,"histograms":["AAAA"]}]}"#
        XCTAssertThrowsError(try ReportWriter.makeJSONDecoder().decode(LatencySummary.self, from: Data(json.utf8))) {
            XCTAssertTrue($0 is DecodingError)
        }
    }

    /// A long phase is cut into at most `maximumIntervals` intervals (each holds a whole histogram
    /// until the report is written), in whole seconds; up to that many seconds, intervals are 1 s.
    func testALongPhaseGetsLongerIntervalsNotMoreOfThem() {
        XCTAssertEqual(IntervalLatencyRecorder.intervalNanoseconds(forPhaseOf: 2), second)
        XCTAssertEqual(IntervalLatencyRecorder.intervalNanoseconds(forPhaseOf: 300), second)
        XCTAssertEqual(IntervalLatencyRecorder.intervalNanoseconds(forPhaseOf: 301), 2 * second)
        XCTAssertEqual(IntervalLatencyRecorder.intervalNanoseconds(forPhaseOf: 3_600), 12 * second)
        for seconds in [0.5, 2, 299, 300, 301, 3_600, 86_400] {
            let interval = IntervalLatencyRecorder.intervalNanoseconds(forPhaseOf: seconds)
            let count = IntervalLatencyRecorder.expectedIntervals(forPhaseOf: seconds, intervalNanoseconds: interval)
            XCTAssertLessThanOrEqual(count, IntervalLatencyRecorder.maximumIntervals + 1, "\(seconds) s")
        }
    }
}
