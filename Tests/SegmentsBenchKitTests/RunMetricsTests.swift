import Foundation
import SegmentsBenchCLI
import XCTest

@testable import SegmentsBenchKit

final class RunMetricsTests: XCTestCase {
    private let labels = MetricLabels(host: "h1", runId: "r1")

    func testBucketsGrowByAQuarterPowerOfTwoFrom128NsTo2To36Ns() {
        let bounds = LatencyBuckets.boundsNanoseconds
        XCTAssertEqual(bounds.count, 117)
        XCTAssertEqual(bounds.first, 128)
        XCTAssertEqual(bounds.last, 1 << 36)
        for (lower, upper) in zip(bounds, bounds.dropFirst()) {
            XCTAssertLessThan(lower, upper)
            XCTAssertEqual(Double(upper) / Double(lower), LatencyBuckets.growthFactor, accuracy: 0.01)
        }
    }

    /// Prometheus' `le` is inclusive: a value equal to a bound is in that bound's bucket.
    func testIndexIsTheFirstBoundAtOrAboveTheValue() {
        XCTAssertEqual(LatencyBuckets.index(of: 1), 0)
        XCTAssertEqual(LatencyBuckets.index(of: 128), 0)
        XCTAssertEqual(LatencyBuckets.index(of: 129), 1)
        XCTAssertEqual(LatencyBuckets.index(of: 1 << 36), 116)
        XCTAssertEqual(LatencyBuckets.index(of: (1 << 36) + 1), 117, "+Inf")
    }

    func testFoldCountsEachRecordedValueOnceWithItsSum() {
        var recorder = LatencyRecorder()
        recorder.record(100, count: 3)
        recorder.record(1_000_000, count: 2)
        let folded = LatencyBuckets.fold(recorder.histogram)
        XCTAssertEqual(folded.count, 5)
        XCTAssertEqual(folded.counts.reduce(0, +), 5)
        XCTAssertEqual(folded.counts[0], 3)
        XCTAssertEqual(folded.counts[LatencyBuckets.index(of: 1_000_000)], 2)
        XCTAssertEqual(folded.sumNanoseconds, 2_000_300, accuracy: 2_000_300 * 0.002, "HdrHistogram keeps 3 digits")
    }

    /// Totals become counter increments: a counter ends at the last total, a shrinking total is
    /// ignored, and a total not given leaves its counter alone.
    func testCountersFollowTheTotals() {
        let metrics = RunMetrics(labels: labels)
        metrics.publish(LiveSample(events: 10, deliveries: 4), scenario: "fleet", now: 1_000_000_000)
        metrics.publish(LiveSample(events: 25, deliveries: 3), scenario: "fleet", now: 2_000_000_000)
        metrics.publish(LiveSample(staleDeliveries: 1), scenario: "fleet", now: 3_000_000_000)
        let text = metrics.exposition()
        XCTAssertTrue(text.contains(#"segments_bench_events_total{host="h1",scenario="fleet",run_id="r1"} 25"#), text)
        XCTAssertTrue(text.contains(#"segments_bench_deliveries_total{host="h1",scenario="fleet",run_id="r1"} 4"#), text)
        XCTAssertTrue(text.contains(#"segments_bench_stale_deliveries_total{host="h1",scenario="fleet",run_id="r1"} 1"#), text)
        XCTAssertTrue(text.contains(#"segments_bench_achieved_rate{host="h1",scenario="fleet",run_id="r1"} 15"#), text)
    }

    /// Metrics to which scenario "s" published its finished result: four "track" latencies of 2 µs,
    /// no totals.
    private func metricsWithAFinishedScenario() -> RunMetrics {
        let metrics = RunMetrics(labels: labels)
        var recorder = LatencyRecorder()
        recorder.record(2_000, count: 4)
        metrics.publish(ScenarioResult(
            scenario: "s", summary: "", configuration: [:], latencies: [recorder.summary("track", definition: "")],
            allocationsMeasured: false))
        return metrics
    }

    /// A total a scenario does not count is no series at all: a 0 would read as measured.
    func testATotalNeverGivenMakesNoSeries() {
        let metrics = metricsWithAFinishedScenario()
        metrics.publish(LiveSample(events: 10), scenario: "t", now: 1_000_000_000)
        let text = metrics.exposition()
        for name in ["events_total", "deliveries_total", "lost_events_total", "stale_deliveries_total", "achieved_rate", "ring_stalls"] {
            XCTAssertFalse(text.contains(#"segments_bench_\#(name){host="h1",scenario="s""#), "s never gave \(name): \(text)")
        }
        XCTAssertTrue(text.contains(#"segments_bench_events_total{host="h1",scenario="t",run_id="r1"} 10"#), text)
        XCTAssertFalse(text.contains(#"segments_bench_lost_events_total{host="h1",scenario="t""#), "t never gave lost events: \(text)")
    }

    /// A total that shrank is ignored, and so is its growth back to where it was: a counter never
    /// passes the largest total given.
    func testACounterNeverPassesTheLargestTotal() {
        let metrics = RunMetrics(labels: labels)
        metrics.publish(LiveSample(events: 10), scenario: "s", now: 1_000_000_000)
        metrics.publish(LiveSample(events: 5), scenario: "s", now: 2_000_000_000)
        metrics.publish(LiveSample(events: 12), scenario: "s", now: 3_000_000_000)
        let text = metrics.exposition()
        XCTAssertTrue(text.contains(#"segments_bench_events_total{host="h1",scenario="s",run_id="r1"} 12"#), text)
        XCTAssertTrue(text.contains(#"segments_bench_achieved_rate{host="h1",scenario="s",run_id="r1"} 2"#), text)
    }

    func testHistogramIsCumulativeWithInfEqualToTheCountAndLabelsEscaped() throws {
        let metrics = RunMetrics(labels: labels)
        var recorder = LatencyRecorder()
        recorder.record(1_000, count: 7)
        recorder.record(5_000_000, count: 3)
        metrics.publish(LiveSample(latencies: [#"a "quoted" name"#: LatencyBuckets.fold(recorder.histogram)]), scenario: "s")
        let lines = metrics.exposition().split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.contains("# TYPE segments_bench_latency_seconds histogram"))
        let buckets = lines.filter { $0.hasPrefix("segments_bench_latency_seconds_bucket{") }
        XCTAssertEqual(buckets.count, LatencyBuckets.boundsNanoseconds.count + 1)
        XCTAssertTrue(buckets[0].contains(#"latency="a \"quoted\" name",le="1.28e-07"}"#), buckets[0])
        let counts = try buckets.map { try XCTUnwrap(UInt64($0.split(separator: " ").last!)) }
        XCTAssertEqual(counts, counts.sorted(), "cumulative")
        XCTAssertTrue(buckets.last!.hasSuffix(#"le="+Inf"} 10"#), buckets.last!)
        XCTAssertTrue(lines.contains { $0.hasPrefix("segments_bench_latency_seconds_count{") && $0.hasSuffix(" 10") })
    }

    /// A quote or backslash followed by a combining mark is one `Character` but still the scalar a
    /// reader ends the value at: it is escaped all the same.
    func testALabelValuesQuoteBeforeACombiningMarkIsEscaped() {
        let metrics = RunMetrics(labels: labels)
        var recorder = LatencyRecorder()
        recorder.record(1_000)
        metrics.publish(LiveSample(latencies: ["a\"\u{301}b\\\u{301}": LatencyBuckets.fold(recorder.histogram)]), scenario: "s")
        let count = metrics.exposition().split(separator: "\n").first { $0.hasPrefix("segments_bench_latency_seconds_count{") }
        XCTAssertEqual(count.map(String.init), #"segments_bench_latency_seconds_count{host="h1",scenario="s",run_id="r1",latency="a\"\#u{301}b\\\#u{301}"} 1"#)
    }

    /// A finished scenario's report histograms are published under their names.
    func testAResultPublishesItsLatencies() {
        let metrics = metricsWithAFinishedScenario()
        XCTAssertTrue(metrics.exposition().contains(#"segments_bench_latency_seconds_count{host="h1",scenario="s",run_id="r1",latency="track"} 4"#))
    }

    /// Stopping publishes the final totals (a period of an hour: no sample is taken before).
    func testSamplerStopPublishesTheFinalSample() {
        let metrics = RunMetrics(labels: labels)
        let sampler = MetricsSampler(metrics: metrics, scenario: "s", period: 3_600) { LiveSample(events: 1) }
        sampler.stop(final: LiveSample(events: 42, lostEvents: 0))
        sampler.stop(final: LiveSample(events: 99))
        let text = metrics.exposition()
        XCTAssertTrue(text.contains(#"segments_bench_events_total{host="h1",scenario="s",run_id="r1"} 42"#), text)
        XCTAssertTrue(text.contains(#"segments_bench_achieved_rate{host="h1",scenario="s",run_id="r1"} 0"#), text)
    }

    func testProgressWithoutMetricsStartsNoSampler() {
        XCTAssertNil(SegmentsBenchKit.Progress(enabled: false).sampleMetrics { XCTFail("sampled"); return LiveSample() })
    }

    func testServerAnswersMetricsAndRefusesOtherPaths() throws {
        let metrics = RunMetrics(labels: labels)
        metrics.publish(LiveSample(events: 3), scenario: "s")
        let server = try MetricsServer.start(metrics: metrics, port: 0)
        defer { server.stop() }
        XCTAssertGreaterThan(server.port, 0)
        let answer = try Self.get("/metrics", port: server.port)
        XCTAssertTrue(answer.hasPrefix("HTTP/1.1 200"), answer)
        XCTAssertTrue(answer.contains("text/plain; version=0.0.4"), answer)
        XCTAssertTrue(answer.contains(#"segments_bench_events_total{host="h1",scenario="s",run_id="r1"} 3"#), answer)
        XCTAssertTrue(try Self.get("/other", port: server.port).hasPrefix("HTTP/1.1 404"))
    }

    func testAnAddressInUseIsAThrownError() throws {
        let metrics = RunMetrics(labels: labels)
        let server = try MetricsServer.start(metrics: metrics, port: 0)
        defer { server.stop() }
        XCTAssertThrowsError(try MetricsServer.start(metrics: metrics, port: server.port).stop())
    }

    func testMetricsOptionsWithoutAPortAreAUsageError() {
        var registry = ScenarioRegistry(builtIns: false)
        try! registry.register(StubScenario(name: "stub"))
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("metrics-options-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        XCTAssertThrowsError(try SegmentsBenchCLI.run(["run", "stub", "--run-id", "x", "--out", out.path], registry: registry)) { error in
            XCTAssertEqual(SegmentsBenchCLI.exitStatus(for: error), 64)
            XCTAssertTrue(SegmentsBenchCLI.message(for: error).contains("goes with --metrics-port or --otlp-endpoint"), SegmentsBenchCLI.message(for: error))
        }
        XCTAssertNoThrow(try SegmentsBenchCLI.run(["run", "stub", "--metrics-port", "0", "--run-id", "x", "--out", out.path], registry: registry))
    }

    /// One `GET path` over a plain socket with `connection: close`; the whole answer as text.
    private static func get(_ path: String, port: Int) throws -> String {
        #if canImport(Glibc)
        let stream = Int32(SOCK_STREAM.rawValue)
        #else
        let stream = SOCK_STREAM
        #endif
        let descriptor = socket(AF_INET, stream, 0)
        guard descriptor >= 0 else { throw POSIXError(.EIO) }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        let request = Array("GET \(path) HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let read = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if read <= 0 { break }
            answer += buffer[0..<read]
        }
        return String(decoding: answer, as: UTF8.self)
    }
}
