import CoreMetrics
import Foundation
import Prometheus
import Synchronization

/// The live metrics of one harness run, in Prometheus' text format for `/metrics`.
///
/// Counters (`segments_bench_events_total`, `…_deliveries_total`, `…_lost_events_total`,
/// `…_stale_deliveries_total`) and gauges (`segments_bench_achieved_rate`,
/// `segments_bench_ring_stalls`) are swift-metrics `Counter`s and `Gauge`s made by a
/// swift-prometheus factory on this run's own registry (the process-wide `MetricsSystem` is left
/// alone). Latencies are one histogram, `segments_bench_latency_seconds{latency="…"}`, with the
/// buckets of ``LatencyBuckets``, rendered from HdrHistogram totals: swift-prometheus' histogram
/// takes one value per call under a lock, while a scenario's distributions arrive as totals.
///
/// Every series is labelled with ``MetricLabels`` and the scenario. Nothing here runs per event:
/// a scenario hands totals to ``publish(_:scenario:)`` (directly or through a ``MetricsSampler``)
/// and the counters advance by the difference from the previous totals.
///
/// An export backend (``init(labels:exportingTo:)``, the OTLP exporter of `--otlp-endpoint`) gets
/// the same counters and gauges, by the same names and labels, and the latency histograms as a
/// swift-metrics `Recorder` each (same name, labels and a `latency` label), fed each sample's
/// growth through ``LatencyReplay``: the backend should bucket them by ``LatencyBuckets``.
///
/// Threading: every method may be called from any thread; one lock guards the state.
public final class RunMetrics: Sendable {
    /// The labels of every series.
    public let labels: MetricLabels
    private let registry = PrometheusCollectorRegistry()
    /// Prometheus' factory, multiplexed with the export backend's when there is one.
    private let factory: any MetricsFactory
    private let export: (any MetricsFactory)?
    private let state = Mutex(State())

    /// One scenario's series and the largest totals published for it. A series is made with the
    /// first total given for it: a scenario that does not count something has no series for it,
    /// rather than a 0 that would read as measured.
    private struct ScenarioSeries {
        var events: CoreMetrics.Counter?
        var deliveries: CoreMetrics.Counter?
        var lostEvents: CoreMetrics.Counter?
        var staleDeliveries: CoreMetrics.Counter?
        var achievedRate: CoreMetrics.Gauge?
        var ringStalls: CoreMetrics.Gauge?
        /// The largest total of each counter so far: a counter advances only beyond it.
        var last = LiveSample()
        var lastEventsAt: UInt64?
        var latencies: [String: LatencyBucketCounts] = [:]
        /// The export backend's latency recorders and what they were fed, by latency name.
        var exported: [String: (recorder: CoreMetrics.Recorder, fed: LatencyBucketCounts)] = [:]
    }

    private struct State {
        var scenarios: [String: ScenarioSeries] = [:]
        /// Scenarios in the order they first published (the exposition's order).
        var order: [String] = []
    }

    /// The histogram's name.
    public static let latencyHistogram = "segments_bench_latency_seconds"

    /// Creates the metrics of a run labelled `labels`, also handed to `export` when given (a
    /// backend that sends them elsewhere; it is never bootstrapped as the process-wide one).
    public init(labels: MetricLabels, exportingTo export: (any MetricsFactory)? = nil) {
        self.labels = labels
        self.export = export
        let prometheus = PrometheusMetricsFactory(registry: registry)
        factory = export.map { MultiplexMetricsHandler(factories: [prometheus, $0]) } ?? prometheus
    }

    /// Publishes `sample`, totals since `scenario` began: each counter advances by what its total
    /// grew beyond the largest one given before (a total that shrank is ignored: counters only
    /// rise, and never pass the largest total), the gauges are set, and each named latency
    /// distribution replaces the previous one. A total or gauge given for the first time makes its
    /// series; one never given has none. `now` is the
    /// monotonic time (ns) of the sample, for the achieved rate; `loadEnded` sets that rate to 0
    /// (a final sample after draining: its events are not a rate).
    ///
    /// With an export backend, the latencies' growth is recorded there after the lock is released
    /// (one `record` per value: a cost on the publishing thread in proportion to the values added).
    public func publish(_ sample: LiveSample, scenario: String, now: UInt64 = monotonicNanoseconds(), loadEnded: Bool = false) {
        let replays = state.withLock { state -> [(CoreMetrics.Recorder, LatencyReplay)] in
            var series = state.scenarios[scenario] ?? ScenarioSeries()
            if state.scenarios[scenario] == nil { state.order.append(scenario) }
            let dimensions = labels.pairs(scenario: scenario)
            if let events = sample.events {
                let rate = series.achievedRate ?? gauge("segments_bench_achieved_rate", dimensions)
                series.achievedRate = rate
                if loadEnded {
                    rate.record(0)
                } else {
                    if let previous = series.last.events, let previousAt = series.lastEventsAt, now > previousAt {
                        rate.record(Double(max(0, events - previous)) / (Double(now - previousAt) / 1e9))
                    }
                    series.lastEventsAt = now
                }
            } else if loadEnded {
                series.achievedRate?.record(0)
            }
            advance(&series.events, "segments_bench_events_total", dimensions, highest: &series.last.events, to: sample.events)
            advance(&series.deliveries, "segments_bench_deliveries_total", dimensions, highest: &series.last.deliveries, to: sample.deliveries)
            advance(&series.lostEvents, "segments_bench_lost_events_total", dimensions, highest: &series.last.lostEvents, to: sample.lostEvents)
            advance(
                &series.staleDeliveries, "segments_bench_stale_deliveries_total", dimensions,
                highest: &series.last.staleDeliveries, to: sample.staleDeliveries)
            if let stalls = sample.ringStalls {
                let gauge = series.ringStalls ?? gauge("segments_bench_ring_stalls", dimensions)
                series.ringStalls = gauge
                gauge.record(stalls)
            }
            series.latencies.merge(sample.latencies) { $1 }
            let replays = exportLatencies(sample.latencies, scenario: scenario, series: &series)
            state.scenarios[scenario] = series
            return replays
        }
        for (recorder, replay) in replays {
            for entry in replay.entries {
                for _ in 0..<entry.count { recorder.record(entry.seconds) }
            }
        }
    }

    /// The replays of `latencies`' growth since each was last fed to the export backend (none
    /// without one); marks them fed.
    private func exportLatencies(
        _ latencies: [String: LatencyBucketCounts], scenario: String, series: inout ScenarioSeries
    ) -> [(CoreMetrics.Recorder, LatencyReplay)] {
        guard let export else { return [] }
        var replays: [(CoreMetrics.Recorder, LatencyReplay)] = []
        for name in latencies.keys.sorted() {
            guard let folded = latencies[name] else { continue }
            let previous = series.exported[name]
            let recorder = previous?.recorder ?? CoreMetrics.Recorder(
                label: Self.latencyHistogram, dimensions: labels.pairs(scenario: scenario) + [("latency", name)],
                aggregate: true, factory: export)
            replays.append((recorder, LatencyReplay(from: previous?.fed, to: folded)))
            // What was fed only grows, bucket by bucket, as the replay does.
            var fed = previous?.fed ?? LatencyBucketCounts(counts: [], count: 0, sumNanoseconds: 0)
            fed.counts = (0..<max(fed.counts.count, folded.counts.count)).map { index in
                max(index < fed.counts.count ? fed.counts[index] : 0, index < folded.counts.count ? folded.counts[index] : 0)
            }
            fed.count = fed.counts.reduce(0, +)
            fed.sumNanoseconds = max(fed.sumNanoseconds, folded.sumNanoseconds)
            fed.minNanoseconds = [fed.minNanoseconds, folded.minNanoseconds].compactMap { $0 }.min()
            fed.maxNanoseconds = [fed.maxNanoseconds, folded.maxNanoseconds].compactMap { $0 }.max()
            series.exported[name] = (recorder, fed)
        }
        return replays
    }

    /// Publishes a finished scenario's latency distributions (its report's histograms, by their
    /// names): the totals a scenario that measures per thread only has at the end.
    public func publish(_ result: ScenarioResult) {
        var latencies: [String: LatencyBucketCounts] = [:]
        for summary in result.latencies { latencies[summary.name] = LatencyBuckets.fold(summary.histogram) }
        publish(LiveSample(latencies: latencies), scenario: result.scenario)
    }

    /// The metrics in Prometheus' text exposition format (version 0.0.4).
    public func exposition() -> String {
        var text = registry.emitToString()
        let histograms = state.withLock { state in
            state.order.compactMap { scenario in state.scenarios[scenario].map { (scenario, $0.latencies) } }
        }
        guard histograms.contains(where: { !$0.1.isEmpty }) else { return text }
        text += "# HELP \(Self.latencyHistogram) Latency distributions of the scenario, by what was measured.\n"
        text += "# TYPE \(Self.latencyHistogram) histogram\n"
        let bounds = LatencyBuckets.boundsNanoseconds.map { Self.seconds($0) } + ["+Inf"]
        for (scenario, latencies) in histograms {
            for name in latencies.keys.sorted() {
                guard let folded = latencies[name] else { continue }
                let common = (labels.pairs(scenario: scenario) + [("latency", name)])
                    .map { "\($0.0)=\"\(PrometheusText.escapedLabelValue($0.1))\"" }.joined(separator: ",")
                var cumulative: UInt64 = 0
                for (index, count) in folded.counts.enumerated() {
                    cumulative += count
                    text += "\(Self.latencyHistogram)_bucket{\(common),le=\"\(bounds[index])\"} \(cumulative)\n"
                }
                text += "\(Self.latencyHistogram)_sum{\(common)} \(folded.sumNanoseconds / 1e9)\n"
                text += "\(Self.latencyHistogram)_count{\(common)} \(folded.count)\n"
            }
        }
        return text
    }

    private func gauge(_ name: String, _ dimensions: [(String, String)]) -> CoreMetrics.Gauge {
        CoreMetrics.Gauge(label: name, dimensions: dimensions, factory: factory)
    }

    /// Advances `counter` (made here at the first total) by what `total` grew beyond `highest`,
    /// the largest total given before, which it then raises.
    private func advance(
        _ counter: inout CoreMetrics.Counter?, _ name: String, _ dimensions: [(String, String)], highest: inout Int?, to total: Int?
    ) {
        guard let total else { return }
        let made = counter ?? CoreMetrics.Counter(label: name, dimensions: dimensions, factory: factory)
        counter = made
        let grown = total - (highest ?? 0)
        if grown > 0 { made.increment(by: grown) }
        highest = max(highest ?? total, total)
    }

    /// Nanoseconds as seconds, in the shortest text that reads back as the same number.
    static func seconds(_ nanoseconds: UInt64) -> String { "\(Double(nanoseconds) / 1e9)" }
}
