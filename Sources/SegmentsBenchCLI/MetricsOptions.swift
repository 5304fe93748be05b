import ArgumentParser
import Foundation
import SegmentsBenchKit

/// The live metrics endpoint of `run` and `suite` (`--metrics-port`).
struct MetricsOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Serve live metrics in Prometheus' text format at http://ADDRESS:PORT/metrics while the run lasts (0: a free port, printed on standard error).",
        valueName: "port"))
    var metricsPort: Int?
    @Option(help: "The address the metrics endpoint binds (with --metrics-port); 0.0.0.0 lets a cluster's Prometheus reach a pod.")
    var metricsAddress = "127.0.0.1"
    @Option(help: ArgumentHelp("Keep serving the metrics this long after the report is written, for a last scrape (with --metrics-port).", valueName: "seconds"))
    var metricsLingerSeconds: Double = 0
    @Option(help: "The run_id label of every series (default: 12 random hex digits); give the processes of one distributed run the same one.")
    var runId: String?

    /// Refuses a port outside 0…65535, a negative linger, an empty run id, and the other metrics
    /// options without `--metrics-port` (usage errors, exit 64).
    func validate() throws {
        if let metricsPort, !(0...65_535).contains(metricsPort) {
            throw ValidationError("--metrics-port must be 0…65535, not \(metricsPort)")
        }
        if !(metricsLingerSeconds >= 0) || !metricsLingerSeconds.isFinite {
            throw ValidationError("--metrics-linger-seconds must be 0 or more, not \(metricsLingerSeconds)")
        }
        if let runId, runId.isEmpty { throw ValidationError("--run-id must not be empty") }
        if metricsPort == nil, metricsAddress != "127.0.0.1" || metricsLingerSeconds != 0 || runId != nil {
            throw ValidationError("--metrics-address, --metrics-linger-seconds and --run-id go with --metrics-port")
        }
    }

    /// Runs `body` with the run's live metrics served on the endpoint, or with `nil` without
    /// `--metrics-port`. After `body` (returned or thrown) the endpoint stays up for
    /// `--metrics-linger-seconds`, then closes; `body`'s error is then rethrown. An address that
    /// cannot be bound is a usage error naming it.
    func serving<Result>(_ body: (RunMetrics?) throws -> Result) throws -> Result {
        guard let metricsPort else { return try body(nil) }
        let metrics = RunMetrics(labels: MetricLabels.current(runId: runId))
        let server: MetricsServer
        do {
            server = try MetricsServer.start(metrics: metrics, host: metricsAddress, port: metricsPort)
        } catch {
            throw ValidationError("--metrics-port: cannot serve on \(metricsAddress):\(metricsPort): \(error)")
        }
        FileHandle.standardError.write(Data(
            "metrics: \(server.url) (host \(metrics.labels.host), run_id \(metrics.labels.runId))\n".utf8))
        defer { server.stop() }
        let outcome = Swift.Result { try body(metrics) }
        if metricsLingerSeconds > 0 {
            FileHandle.standardError.write(Data("metrics: serving \(metricsLingerSeconds) s more for a last scrape\n".utf8))
            usleep(UInt32(min(metricsLingerSeconds, 4_000) * 1e6))
        }
        return try outcome.get()
    }
}
