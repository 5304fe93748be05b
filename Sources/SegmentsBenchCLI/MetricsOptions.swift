import ArgumentParser
import Foundation
import SegmentsBenchKit

/// The live metrics of `run` and `suite`: served for Prometheus (`--metrics-port`) and/or pushed
/// over OTLP/HTTP (`--otlp-endpoint`, in a build with the `OTLP` package trait).
struct MetricsOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Serve live metrics in Prometheus' text format at http://ADDRESS:PORT/metrics while the run lasts (0: a free port, printed on standard error).",
        valueName: "port"))
    var metricsPort: Int?
    @Option(help: "The address the metrics endpoint binds (with --metrics-port); 0.0.0.0 lets a cluster's Prometheus reach a pod.")
    var metricsAddress = "127.0.0.1"
    @Option(parsing: .unconditional, help: ArgumentHelp("Keep serving the metrics this long after the report is written, for a last scrape (with --metrics-port).", valueName: "seconds"))
    var metricsLingerSeconds: Double = 0
    @Option(help: ArgumentHelp(
        "Push the live metrics over OTLP/HTTP (protobuf) to this collector, e.g. http://127.0.0.1:4318 (its /v1/metrics); needs a build with the OTLP trait: swift build -c release --traits OTLP.",
        valueName: "url"))
    var otlpEndpoint: String?
    @Option(parsing: .unconditional, help: ArgumentHelp("How often the metrics are pushed (with --otlp-endpoint), more than 0 and at most 86400; a last push follows the report.", valueName: "seconds"))
    var otlpIntervalSeconds: Double = 5
    @Option(help: "The run_id label of every series (default: 12 random hex digits); give the processes of one distributed run the same one.")
    var runId: String?

    /// Refuses a port outside 0…65535, a linger outside 0…86,400 s, an empty run id, and the other metrics
    /// options without `--metrics-port` (usage errors, exit 64).
    func validate() throws {
        if let metricsPort, !(0...65_535).contains(metricsPort) {
            throw ValidationError("--metrics-port must be 0…65535, not \(metricsPort)")
        }
        if !(0...86_400).contains(metricsLingerSeconds) {
            throw ValidationError("--metrics-linger-seconds must be 0 to 86400 (a day), not \(metricsLingerSeconds)")
        }
        if let runId, runId.isEmpty { throw ValidationError("--run-id must not be empty") }
        if metricsPort == nil, metricsAddress != "127.0.0.1" || metricsLingerSeconds != 0 {
            throw ValidationError("--metrics-address and --metrics-linger-seconds go with --metrics-port")
        }
        if metricsPort == nil, otlpEndpoint == nil, runId != nil {
            throw ValidationError("--run-id goes with --metrics-port or --otlp-endpoint")
        }
        if otlpEndpoint == nil, otlpIntervalSeconds != 5 {
            throw ValidationError("--otlp-interval-seconds goes with --otlp-endpoint")
        }
        if let otlpEndpoint {
            // At most a day: swift-otel takes the interval as milliseconds in an Int64.
            if !(otlpIntervalSeconds > 0 && otlpIntervalSeconds <= 86_400) {
                throw ValidationError("--otlp-interval-seconds must be more than 0 and at most 86400, not \(otlpIntervalSeconds)")
            }
            #if OTLP
            _ = try OTLPExport.metricsURL(otlpEndpoint)
            #else
            _ = otlpEndpoint
            throw ValidationError(OTLPExport.missingTraitMessage)
            #endif
        }
    }

    /// Runs `body` with the run's live metrics served on the endpoint and/or pushed over OTLP, or
    /// with `nil` without `--metrics-port` and `--otlp-endpoint`. After `body` (returned or thrown)
    /// the OTLP exporter pushes once more and stops, and the endpoint stays up for
    /// `--metrics-linger-seconds`, then closes; `body`'s error is then rethrown. An address that
    /// cannot be bound is a usage error naming it; an unreachable collector is logged by the
    /// exporter, never an error of the run.
    func serving<Result>(_ body: (RunMetrics?) throws -> Result) throws -> Result {
        guard metricsPort != nil || otlpEndpoint != nil else { return try body(nil) }
        let labels = MetricLabels.current(runId: runId)
        #if OTLP
        let exporter = try otlpEndpoint.map { try OTLPExport.start(endpoint: $0, intervalSeconds: otlpIntervalSeconds) }
        let metrics = RunMetrics(labels: labels, exportingTo: exporter?.factory)
        if let exporter {
            FileHandle.standardError.write(Data(
                "metrics: OTLP to \(exporter.url) every \(otlpIntervalSeconds) s (host \(labels.host), run_id \(labels.runId))\n".utf8))
        }
        #else
        let metrics = RunMetrics(labels: labels)
        #endif
        var server: MetricsServer?
        if let metricsPort {
            let started: MetricsServer
            do {
                started = try MetricsServer.start(metrics: metrics, host: metricsAddress, port: metricsPort)
            } catch {
                #if OTLP
                exporter?.stop()
                #endif
                throw ValidationError("--metrics-port: cannot serve on \(metricsAddress):\(metricsPort): \(error)")
            }
            server = started
            FileHandle.standardError.write(Data("metrics: \(started.url) (host \(labels.host), run_id \(labels.runId))\n".utf8))
        }
        defer { server?.stop() }
        let outcome = Swift.Result { try body(metrics) }
        #if OTLP
        exporter?.stop()  // the last push, with the totals the report has
        #endif
        if server != nil, metricsLingerSeconds > 0 {
            FileHandle.standardError.write(Data("metrics: serving \(metricsLingerSeconds) s more for a last scrape\n".utf8))
            Thread.sleep(forTimeInterval: metricsLingerSeconds)
        }
        return try outcome.get()
    }
}
