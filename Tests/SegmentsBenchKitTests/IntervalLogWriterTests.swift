import Foundation
import Histogram
@testable import SegmentsBenchKit
import XCTest

/// The `.hlog` text: HdrHistogram's header, legend and tagged interval lines in time order.
final class IntervalLogWriterTests: XCTestCase {
    private func histogram(_ values: [UInt64]) -> Histogram<UInt64> {
        var recorder = LatencyRecorder()
        for value in values { recorder.record(value) }
        return recorder.histogram
    }

    func testTwoHostsInTimeOrderWithTheirTags() throws {
        let a = LatencyIntervals(startTime: 1_700_000_001, intervalSeconds: 1, histograms: [histogram([1_500_000]), histogram([])])
        let b = LatencyIntervals(host: "box, two", startTime: 1_700_000_000.5, intervalSeconds: 1, histograms: [histogram([10, 20])])
        let writer = IntervalLogWriter(tags: [("scenario", "tracking-storm"), ("latency", "trackEvent call")])
        let text = try XCTUnwrap(try writer.render([a, b], defaultHost: "ci:1"))
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        XCTAssertEqual(lines[0], "#[Histogram log format version 1.3]")
        XCTAssertTrue(lines[1].hasPrefix("#[StartTime: 1700000000.500 (seconds since epoch), "))
        XCTAssertEqual(lines[2], "#[BaseTime: 1700000000.500 (seconds since epoch)]")
        XCTAssertEqual(lines[3], #""StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram""#)
        XCTAssertTrue(lines[4].hasPrefix("Tag=host:box__two;scenario:tracking-storm;latency:trackEvent_call,0.000,1.000,0.000,"))
        XCTAssertTrue(lines[5].hasPrefix("Tag=host:ci_1;scenario:tracking-storm;latency:trackEvent_call,0.500,1.000,1.500,"))
        XCTAssertTrue(lines[6].hasPrefix("Tag=host:ci_1;scenario:tracking-storm;latency:trackEvent_call,1.500,1.000,0.000,"))
        XCTAssertEqual(lines[7], "")
        XCTAssertEqual(lines.count, 8)
        let counts = try lines[4...6].map { line in
            try HistogramEncoding.decode(base64: line.split(separator: ",").last!).totalCount
        }
        XCTAssertEqual(counts, [2, 1, 0])
    }

    func testNoIntervalsNoLog() throws {
        XCTAssertNil(try IntervalLogWriter(tags: []).render([], defaultHost: "h"))
        XCTAssertNil(try IntervalLogWriter(tags: []).render([LatencyIntervals(startTime: 0, intervalSeconds: 1, histograms: [])], defaultHost: "h"))
    }

    /// A phase that ends partway through its last interval ran for part of it: that interval's
    /// rate is its count over the part, not over a whole interval.
    func testTheLastIntervalsRateIsOverTheTimeItWasOpen() throws {
        let full = histogram((1...100).map { UInt64($0) * 1_000 })
        let partial = histogram((1...25).map { UInt64($0) * 1_000 })
        let intervals = LatencyIntervals(startTime: 0, intervalSeconds: 1, histograms: [full, partial], lastIntervalSeconds: 0.25)
        XCTAssertEqual(IntervalTimeline(intervals).points.map(\.operationsPerSecond), [100, 100])
        let reread = try JSONDecoder().decode(LatencyIntervals.self, from: JSONEncoder().encode(intervals))
        XCTAssertEqual(reread.lastIntervalSeconds, 0.25)
    }

    /// A recorder finished partway through an interval says how much of it had passed.
    func testARecorderFinishedPartwayRecordsHowLongItsLastIntervalWasOpen() throws {
        let origin = monotonicNanoseconds()
        var recorder = IntervalLatencyRecorder(origin: origin, intervalNanoseconds: 3_600_000_000_000, expectedIntervals: 1)
        recorder.record(1_000, at: origin + 1)
        let finished = try XCTUnwrap(recorder.finish(startTime: 0).intervals)
        let open = try XCTUnwrap(finished.lastIntervalSeconds)
        XCTAssertGreaterThan(open, 0)
        XCTAssertLessThan(open, 3_600, "an hour has not passed")
    }

    func testTimelinePointsRespectThePercentileSupportRule() {
        let busy = histogram((1...200).map { UInt64($0) * 1_000 })
        let quiet = histogram([5_000])
        let timeline = IntervalTimeline(LatencyIntervals(startTime: 0, intervalSeconds: 0.5, histograms: [busy, quiet, histogram([])]))
        XCTAssertEqual(timeline.points.map(\.time), [0, 0.5, 1])
        XCTAssertEqual(timeline.points.map(\.operationsPerSecond), [400, 2, 0])
        XCTAssertNotNil(timeline.points[0].p99)
        XCTAssertNil(timeline.points[1].p99)
        XCTAssertEqual(timeline.points[1].p50, quiet.valueAtPercentile(50))
        XCTAssertNil(timeline.points[2].p50)
    }

    /// The last interval of a phase is often partial: its line gives its own length, so a reader
    /// that computes rates from the log does not understate it.
    func testAPartialLastIntervalGetsItsOwnLength() throws {
        let intervals = LatencyIntervals(
            startTime: 1_700_000_000, intervalSeconds: 1, histograms: [histogram([1_000]), histogram([1_000])], lastIntervalSeconds: 0.25)
        let text = try XCTUnwrap(IntervalLogWriter(tags: []).render([intervals], defaultHost: "h"))
        let last = try XCTUnwrap(text.split(separator: "\n").last)
        XCTAssertTrue(last.hasPrefix("Tag=host:h,1.000,0.250,"), String(last.prefix(40)))
    }
}
