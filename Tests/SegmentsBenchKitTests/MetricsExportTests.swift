import CoreMetrics
import Foundation
import SegmentsBenchCLI
import Synchronization
import XCTest

@testable import SegmentsBenchKit

/// What ``RunMetrics`` hands an export backend (the OTLP exporter's factory in a build with the
/// OTLP trait), seen through a recording swift-metrics factory.
final class MetricsExportTests: XCTestCase {
    private let labels = MetricLabels(host: "h1", runId: "r1")

    func testCountersAndGaugesReachTheBackendWithThePrometheusNamesAndLabels() {
        let backend = RecordingFactory()
        let metrics = RunMetrics(labels: labels, exportingTo: backend)
        metrics.publish(LiveSample(events: 5, deliveries: 2, ringStalls: 1), scenario: "s", now: 1_000_000_000)
        metrics.publish(LiveSample(events: 12, deliveries: 2, ringStalls: 3), scenario: "s", now: 2_000_000_000)
        let dimensions = [("host", "h1"), ("scenario", "s"), ("run_id", "r1")]
        XCTAssertEqual(backend.counter("segments_bench_events_total", dimensions), 12)
        XCTAssertEqual(backend.counter("segments_bench_deliveries_total", dimensions), 2)
        XCTAssertEqual(backend.gauge("segments_bench_ring_stalls", dimensions), 3)
        XCTAssertEqual(backend.gauge("segments_bench_achieved_rate", dimensions), 7)
        XCTAssertTrue(metrics.exposition().contains(#"segments_bench_events_total{host="h1",scenario="s",run_id="r1"} 12"#),
                      "Prometheus keeps its series")
    }

    func testLatencyGrowthIsRecordedOnceInTheBucketsOfLatencyBuckets() {
        let backend = RecordingFactory()
        let metrics = RunMetrics(labels: labels, exportingTo: backend)
        var recorder = LatencyRecorder()
        recorder.record(1_000, count: 3)
        recorder.record(5_000_000, count: 2)
        metrics.publish(LiveSample(latencies: ["e2e": LatencyBuckets.fold(recorder.histogram)]), scenario: "s")
        recorder.record(1_000, count: 4)
        recorder.record(200_000_000_000, count: 1)  // above every bound: +Inf
        let whole = LatencyBuckets.fold(recorder.histogram)
        metrics.publish(LiveSample(latencies: ["e2e": whole]), scenario: "s")
        metrics.publish(LiveSample(latencies: ["e2e": whole]), scenario: "s")  // nothing new

        let values = backend.recorded(RunMetrics.latencyHistogram, [("host", "h1"), ("scenario", "s"), ("run_id", "r1"), ("latency", "e2e")])
        XCTAssertEqual(values.count, 10)
        var counts = [UInt64](repeating: 0, count: LatencyBuckets.boundsNanoseconds.count + 1)
        for seconds in values {
            // As an OTLP histogram buckets a double: the first bound at or above it.
            counts[LatencyBuckets.boundsNanoseconds.firstIndex { Double($0) / 1e9 >= seconds } ?? LatencyBuckets.boundsNanoseconds.count] += 1
        }
        XCTAssertEqual(counts, whole.counts)
        XCTAssertEqual(values.reduce(0, +), whole.sumNanoseconds / 1e9, accuracy: whole.sumNanoseconds / 1e9 * 1e-9)
    }

    /// OTLP's data point carries the least and greatest value recorded: the replay records those
    /// two values exactly, whatever it places elsewhere.
    func testTheReplayRecordsTheTrueLeastAndGreatestValues() {
        let backend = RecordingFactory()
        let metrics = RunMetrics(labels: labels, exportingTo: backend)
        var recorder = LatencyRecorder()
        recorder.record(900, count: 10)
        recorder.record(2_000, count: 1)
        metrics.publish(LiveSample(latencies: ["e2e": LatencyBuckets.fold(recorder.histogram)]), scenario: "s")
        recorder.record(1_000, count: 3)
        recorder.record(5_000_000, count: 2)
        recorder.record(700, count: 1)
        metrics.publish(LiveSample(latencies: ["e2e": LatencyBuckets.fold(recorder.histogram)]), scenario: "s")
        let values = backend.recorded(RunMetrics.latencyHistogram, [("host", "h1"), ("scenario", "s"), ("run_id", "r1"), ("latency", "e2e")])
        XCTAssertEqual(values.count, 17)
        // The histogram keeps 5 ms at its precision: the value it gives back is the one recorded.
        let greatest = Double(recorder.histogram.recordedValues().map(\.value).max() ?? 0) / 1e9
        XCTAssertEqual(greatest, 5e-3, accuracy: 5e-6)
        XCTAssertEqual(values.max() ?? 0, greatest, accuracy: 1e-15, "the greatest value recorded")
        XCTAssertEqual(values.min() ?? 0, 7e-7, accuracy: 1e-15, "the least value recorded")
        XCTAssertEqual(values.prefix(11).max() ?? 0, 2e-6, accuracy: 1e-15, "the first sample's greatest")
        XCTAssertEqual(values.prefix(11).min() ?? 0, 9e-7, accuracy: 1e-15, "the first sample's least")
    }

    func testReplayValuesStayInsideTheirBucketsAndAddUpToTheSum() {
        let bounds = LatencyBuckets.boundsNanoseconds
        var new = LatencyBucketCounts(counts: [UInt64](repeating: 0, count: bounds.count + 1), count: 0, sumNanoseconds: 0)
        new.counts[0] = 2  // (0, 128]
        new.counts[10] = 3
        new.count = 5
        // Every value at its bucket's top: the placed values must rise to it without leaving.
        new.sumNanoseconds = 2 * 128 + 3 * Double(bounds[10])
        let replay = LatencyReplay(from: nil, to: new)
        XCTAssertEqual(replay.entries.map(\.count), [2, 3])
        for (entry, index) in zip(replay.entries, [0, 10]) {
            let nanoseconds = entry.seconds * 1e9
            XCTAssertLessThanOrEqual(nanoseconds, Double(bounds[index]))
            XCTAssertGreaterThan(nanoseconds, index == 0 ? 0 : Double(bounds[index - 1]))
        }
        let placed = replay.entries.reduce(0) { $0 + $1.seconds * 1e9 * Double($1.count) }
        XCTAssertEqual(placed, new.sumNanoseconds, accuracy: new.sumNanoseconds * 0.01, "as near as the buckets allow")

        XCTAssertEqual(LatencyReplay(from: new, to: new).entries, [], "no growth, nothing to record")
        var shrunk = new
        shrunk.counts[10] = 1
        XCTAssertEqual(LatencyReplay(from: new, to: shrunk).entries, [], "a histogram only grows")
    }

    /// A sampler that fell behind (a stalled source, a descheduled thread) takes its next sample a
    /// period after the late one, not the missed ones back to back: the achieved rate is never
    /// events over a window of microseconds.
    func testTheAchievedRateIsTakenOverAtLeastAPeriodAfterAStall() {
        let backend = RecordingFactory()
        let metrics = RunMetrics(labels: labels, exportingTo: backend)
        let calls = Mutex(0)
        let sixth = DispatchSemaphore(value: 0)
        let sampler = MetricsSampler(metrics: metrics, scenario: "s", period: 0.05) {
            let call = calls.withLock { calls in
                calls += 1
                return calls
            }
            if call == 2 { usleep(400_000) }  // eight periods
            if call == 6 { sixth.signal() }
            return LiveSample(events: call * 1_000)
        }
        sixth.wait()
        sampler.stop()
        let rates = backend.recorded("segments_bench_achieved_rate", [("host", "h1"), ("scenario", "s"), ("run_id", "r1")])
        XCTAssertGreaterThanOrEqual(rates.count, 4)
        // 1,000 events a sample, samples at least 50 ms apart.
        XCTAssertLessThanOrEqual(rates.max() ?? 0, 20_000, "rates after the stall: \(rates)")
    }

    func testWithoutAnExportBackendPrometheusStillHasTheSeries() {
        let metrics = RunMetrics(labels: labels)
        metrics.publish(LiveSample(events: 1), scenario: "s")
        XCTAssertTrue(metrics.exposition().contains("segments_bench_events_total"))
    }

    #if !OTLP
    /// A build without the OTLP trait names the build command instead of exporting.
    func testOTLPEndpointWithoutTheTraitIsAUsageErrorNamingTheBuild() {
        var registry = ScenarioRegistry(builtIns: false)
        try! registry.register(StubScenario(name: "stub"))
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("otlp-options-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        XCTAssertThrowsError(try SegmentsBenchCLI.run(
            ["run", "stub", "--otlp-endpoint", "http://127.0.0.1:4318", "--out", out.path], registry: registry)) { error in
            XCTAssertEqual(SegmentsBenchCLI.exitStatus(for: error), 64)
            let message = SegmentsBenchCLI.message(for: error)
            XCTAssertTrue(message.contains("built without OTLP"), message)
            XCTAssertTrue(message.contains("swift build -c release --traits OTLP"), message)
        }
    }
    #endif

    /// An export interval is milliseconds in an `Int64` for swift-otel: one beyond a day is refused
    /// as a usage error, in every build, before anything is converted.
    func testAnOTLPIntervalBeyondADayIsAUsageError() {
        var registry = ScenarioRegistry(builtIns: false)
        try! registry.register(StubScenario(name: "stub"))
        for interval in ["1e16", "86401", "0", "nan"] {
            XCTAssertThrowsError(try SegmentsBenchCLI.run(
                ["run", "stub", "--otlp-endpoint", "http://127.0.0.1:4318", "--otlp-interval-seconds", interval], registry: registry)) { error in
                XCTAssertEqual(SegmentsBenchCLI.exitStatus(for: error), 64)
                let message = SegmentsBenchCLI.message(for: error)
                XCTAssertTrue(message.contains("--otlp-interval-seconds must be more than 0 and at most 86400"), "\(interval): \(message)")
            }
        }
    }

    func testOTLPOptionsWithoutTheEndpointAreAUsageError() {
        var registry = ScenarioRegistry(builtIns: false)
        try! registry.register(StubScenario(name: "stub"))
        XCTAssertThrowsError(try SegmentsBenchCLI.run(["run", "stub", "--otlp-interval-seconds", "2"], registry: registry)) { error in
            XCTAssertEqual(SegmentsBenchCLI.exitStatus(for: error), 64)
            XCTAssertTrue(SegmentsBenchCLI.message(for: error).contains("goes with --otlp-endpoint"), SegmentsBenchCLI.message(for: error))
        }
    }
}

/// A swift-metrics backend that keeps what it is handed, by label and dimensions.
private final class RecordingFactory: MetricsFactory {
    private let handlers = Mutex<[String: any Sendable]>([:])

    private static func key(_ label: String, _ dimensions: [(String, String)]) -> String {
        ([label] + dimensions.map { "\($0.0)=\($0.1)" }).joined(separator: "|")
    }

    private func handler<Handler: Sendable>(_ label: String, _ dimensions: [(String, String)], _ make: () -> Handler) -> Handler {
        handlers.withLock { handlers in
            let key = Self.key(label, dimensions)
            if let existing = handlers[key] as? Handler { return existing }
            let made = make()
            handlers[key] = made
            return made
        }
    }

    func counter(_ label: String, _ dimensions: [(String, String)]) -> Int64? {
        handlers.withLock { ($0[Self.key(label, dimensions)] as? Values)?.values.withLock { $0.last.map(Int64.init) } }
    }

    func gauge(_ label: String, _ dimensions: [(String, String)]) -> Double? {
        handlers.withLock { ($0[Self.key(label, dimensions)] as? Values)?.values.withLock { $0.last } }
    }

    func recorded(_ label: String, _ dimensions: [(String, String)]) -> [Double] {
        handlers.withLock { ($0[Self.key(label, dimensions)] as? Values)?.values.withLock { $0 } ?? [] }
    }

    /// Every value handed to one handler; a counter keeps its running total as the last.
    final class Values: CounterHandler, RecorderHandler, Sendable {
        let values = Mutex<[Double]>([])
        func increment(by amount: Int64) { values.withLock { $0.append(($0.last ?? 0) + Double(amount)) } }
        func reset() { values.withLock { $0 = [] } }
        func record(_ value: Int64) { record(Double(value)) }
        func record(_ value: Double) { values.withLock { $0.append(value) } }
    }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler { handler(label, dimensions) { Values() } }
    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        handler(label, dimensions) { Values() }
    }
    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler { NOOPMetricsHandler.instance }
    func destroyCounter(_ handler: any CounterHandler) {}
    func destroyRecorder(_ handler: any RecorderHandler) {}
    func destroyTimer(_ handler: any TimerHandler) {}
}
