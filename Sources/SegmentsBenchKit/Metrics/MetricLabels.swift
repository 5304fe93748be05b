import Foundation

/// The labels every live series carries: the host, the run and (added per series) the scenario.
/// Nothing per device or per event: the number of series stays fixed whatever the fleet's size.
public struct MetricLabels: Sendable, Hashable {
    /// The machine or pod (its host name by default).
    public var host: String
    /// One run of the harness, shared by the processes of one distributed run so that their
    /// series sum (`sum by (…) (…{run_id="…"})`).
    public var runId: String

    /// Creates labels.
    public init(host: String, runId: String) {
        self.host = host
        self.runId = runId
    }

    /// This machine's host name and a new random run id (12 hex digits).
    public static func current(runId: String? = nil) -> MetricLabels {
        MetricLabels(host: ProcessInfo.processInfo.hostName, runId: runId ?? randomRunId())
    }

    /// A run id of 12 random hex digits.
    public static func randomRunId() -> String {
        String((0..<12).map { _ in "0123456789abcdef".randomElement()! })
    }

    /// The label pairs of a series of `scenario`, in exposition order.
    func pairs(scenario: String) -> [(String, String)] {
        [("host", host), ("scenario", scenario), ("run_id", runId)]
    }
}
