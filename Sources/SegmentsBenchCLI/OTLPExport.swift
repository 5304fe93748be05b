import ArgumentParser
import Foundation
#if OTLP
import CoreMetrics
import OTel
import SegmentsBenchKit
import ServiceLifecycle
import Synchronization
#endif

/// The OTLP/HTTP (protobuf) push of a run's live metrics (`--otlp-endpoint`), through swift-otel's
/// metrics backend. Only a build with the `OTLP` package trait has it: swift-otel is a long cold
/// build, so default builds and CI leave it out and `--otlp-endpoint` is a usage error there.
///
/// The backend gets the same series as `/metrics` (see ``RunMetrics``) with host, scenario and
/// run_id as data-point attributes, and buckets `segments_bench_latency_seconds` by
/// ``LatencyBuckets``. It pushes every interval on a task of its own and once more at ``stop()``;
/// a collector that cannot be reached is logged by swift-otel (standard error), never an error of
/// the run. `OTEL_*` environment variables that swift-otel reads still apply over these settings.
final class OTLPExport: Sendable {
    /// Why `--otlp-endpoint` is refused by a build without the trait, and how to get one.
    static let missingTraitMessage = """
        --otlp-endpoint: this segments-bench was built without OTLP export; build it with the OTLP \
        package trait: swift build -c release --traits OTLP --product segments-bench
        """

    #if OTLP
    /// The backend's factory, for ``RunMetrics/init(labels:exportingTo:)``.
    let factory: any MetricsFactory
    /// Where the metrics are posted (the endpoint's `/v1/metrics`).
    let url: String
    private let group: ServiceGroup
    /// Signalled when the backend's services have returned (after the last push).
    private let finished = DispatchSemaphore(value: 0)
    private let stopped = Mutex(false)

    private init(factory: any MetricsFactory, url: String, group: ServiceGroup) {
        self.factory = factory
        self.url = url
        self.group = group
    }

    /// The URL metrics are posted to for `endpoint`: a collector's base URL gets `/v1/metrics`
    /// (as `OTEL_EXPORTER_OTLP_ENDPOINT` does), one that already ends so is kept. Anything but an
    /// http(s) URL with a host is a usage error.
    static func metricsURL(_ endpoint: String) throws -> String {
        guard let parsed = URL(string: endpoint), let scheme = parsed.scheme?.lowercased(), ["http", "https"].contains(scheme),
              let host = parsed.host, !host.isEmpty
        else { throw ValidationError("--otlp-endpoint must be an http:// or https:// URL such as http://127.0.0.1:4318, not '\(endpoint)'") }
        var base = endpoint
        while base.hasSuffix("/") { base.removeLast() }
        return base.hasSuffix("/v1/metrics") ? base : base + "/v1/metrics"
    }

    /// Starts the backend, pushing to `endpoint` every `intervalSeconds`. A configuration that
    /// swift-otel refuses (say, `OTEL_SDK_DISABLED=true`) is a usage error naming its reason.
    static func start(endpoint: String, intervalSeconds: Double) throws -> OTLPExport {
        let url = try metricsURL(endpoint)
        var configuration = OTel.Configuration.default
        configuration.serviceName = "segments-bench"
        configuration.diagnosticLogLevel = .warning  // failed pushes, not the exporter's life cycle
        configuration.traces.enabled = false
        configuration.logs.enabled = false
        configuration.metrics.exportInterval = .milliseconds(Int64((intervalSeconds * 1_000).rounded(.up)))
        // swift-otel retries a failed push with backoff until this timeout: what a collector that
        // cannot be reached adds to the end of a run.
        configuration.metrics.exportTimeout = .seconds(5)
        configuration.metrics.otlpExporter.endpoint = url
        configuration.metrics.otlpExporter.protocol = .httpProtobuf
        configuration.metrics.valueHistogramBuckets[RunMetrics.latencyHistogram] =
            LatencyBuckets.boundsNanoseconds.map { Double($0) / 1e9 }
        let export: OTLPExport
        do {
            let backend = try OTel.makeMetricsBackend(configuration: configuration)
            export = OTLPExport(factory: backend.factory, url: url, group: ServiceGroup(services: [backend.service]))
        } catch {
            throw ValidationError("--otlp-endpoint: swift-otel refused the exporter: \(error)")
        }
        Task.detached { [export] in
            do { try await export.group.run() } catch {
                FileHandle.standardError.write(Data("metrics: the OTLP exporter stopped: \(error)\n".utf8))
            }
            export.finished.signal()
        }
        return export
    }

    /// Pushes once more (what was published so far) and stops the backend; waits for that push,
    /// at most 15 s (swift-otel gives up on a push after 5 s of retries). Later calls return at
    /// once. Call it from a thread outside Swift concurrency's pool (it blocks).
    func stop() {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        let group = group
        Task.detached { await group.triggerGracefulShutdown() }
        if finished.wait(timeout: .now() + 15) == .timedOut {
            FileHandle.standardError.write(Data("metrics: the last OTLP push did not finish within 15 s\n".utf8))
        }
    }
    #endif
}
