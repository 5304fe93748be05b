import SegmentsBenchKit
import XCTest

final class LatencyRecorderTests: XCTestCase {
    func testPercentilesComeFromTheRecordedValues() throws {
        var recorder = LatencyRecorder()
        for value in 1...1_000 { recorder.record(UInt64(value)) }
        let summary = recorder.summary("values", definition: "1...1000")
        XCTAssertEqual(summary.count, 1_000)
        XCTAssertEqual(Double(summary.p50), 500, accuracy: 1)
        XCTAssertEqual(Double(try XCTUnwrap(summary.p99)), 990, accuracy: 1)
        XCTAssertEqual(summary.max, 1_000)
    }

    func testCoordinatedOmissionCorrectionAddsTheMissedSamples() {
        var recorder = LatencyRecorder()
        recorder.recordCorrected(10_000, expectedInterval: 1_000)
        XCTAssertEqual(recorder.count, 10, "one stall of 10 intervals stands for the 9 requests it delayed")
    }

    func testMergingAddsCounts() {
        var first = LatencyRecorder()
        var second = LatencyRecorder()
        first.record(5)
        second.record(7)
        first.merge(second)
        XCTAssertEqual(first.count, 2)
    }
}
