/// One scenario's result with the context of the run that produced it: the content of
/// `<scenario>.json`, which therefore reads on its own, without `report.json`.
public struct ScenarioReport: Codable, Sendable {
    /// Format version of this JSON (the same as ``BenchReport/version``).
    public var version: Int
    public var machine: MachineInfo
    /// See ``BenchReport/gitRevision``.
    public var gitRevision: String
    /// ISO 8601 start time of the run.
    public var startedAt: String
    /// The command line that produced the run.
    public var command: String
    public var result: ScenarioResult

    /// The part of `report` about `result`.
    public init(report: BenchReport, result: ScenarioResult) {
        version = report.version
        machine = report.machine
        gitRevision = report.gitRevision
        startedAt = report.startedAt
        command = report.command
        self.result = result
    }
}
