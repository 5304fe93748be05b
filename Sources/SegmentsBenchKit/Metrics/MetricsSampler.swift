import Atomics
import Foundation

/// Samples a scenario's totals at a fixed period on its own thread and publishes them to a
/// ``RunMetrics``: the scenario's measured paths only keep the counters they keep anyway.
///
/// Threading: `source` runs on the sampler's thread, once per period and never concurrently with
/// itself; ``stop(final:)`` may be called from any thread, once.
public final class MetricsSampler: Sendable {
    private let metrics: RunMetrics
    private let scenario: String
    private let stopped = ManagedAtomic(false)
    private let finished = DispatchSemaphore(value: 0)

    /// Starts sampling `source` every `period` seconds (at least 10 ms) into `metrics` under
    /// `scenario`; the first sample is taken after one period, and each one at least a period
    /// after the one before (a late sample moves the schedule on; missed ones are not taken).
    public init(metrics: RunMetrics, scenario: String, period: Double = 0.25, source: @escaping @Sendable () -> LiveSample) {
        self.metrics = metrics
        self.scenario = scenario
        let interval = UInt64(max(period, 0.01) * 1e9)
        let thread = Thread { [metrics, scenario, stopped, finished] in
            var next = monotonicNanoseconds() + interval
            while true {
                while monotonicNanoseconds() < next {
                    if stopped.load(ordering: .acquiring) { break }
                    usleep(10_000)
                }
                if stopped.load(ordering: .acquiring) { break }
                // The time the totals are read at, not after a slow source returned.
                let sampledAt = monotonicNanoseconds()
                metrics.publish(source(), scenario: scenario, now: sampledAt)
                // Behind schedule, the next sample is a period after this one: samples taken back
                // to back would make the achieved rate events over microseconds.
                next = max(next + interval, monotonicNanoseconds() + interval)
            }
            finished.signal()
        }
        thread.name = "segments-bench metrics sampler"
        thread.start()
    }

    /// Stops sampling (waiting for a sample in progress), then publishes `final` when given: the
    /// totals once the scenario has drained, which is what a final scrape should read (the
    /// achieved rate then reads 0: the load is over).
    public func stop(final: LiveSample? = nil) {
        guard stopped.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        finished.wait()
        if let final { metrics.publish(final, scenario: scenario, loadEnded: true) }
    }
}

extension Progress {
    /// A sampler of `source` into this run's live metrics under this reporter's scenario, or
    /// `nil` (and `source` never runs) when the run has no live metrics.
    public func sampleMetrics(every period: Double = 0.25, _ source: @escaping @Sendable () -> LiveSample) -> MetricsSampler? {
        guard let metrics else { return nil }
        return MetricsSampler(metrics: metrics, scenario: prefix, period: period, source: source)
    }
}
