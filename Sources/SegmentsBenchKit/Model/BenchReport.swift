import Foundation

/// One run of the harness: where and when it ran, and every scenario's result.
public struct BenchReport: Codable, Sendable {
    /// Format version of this JSON.
    public var version = 1
    public var machine: MachineInfo
    /// `git rev-parse HEAD` of the working tree (with `-dirty` if it has changes), or `unknown`.
    public var gitRevision: String
    /// ISO 8601 start time.
    public var startedAt: String
    /// The command line that produced it.
    public var command: String
    public var scenarios: [ScenarioResult]

    /// Creates a report.
    public init(machine: MachineInfo, gitRevision: String, startedAt: Date, command: String, scenarios: [ScenarioResult]) {
        self.machine = machine
        self.gitRevision = gitRevision
        self.startedAt = ISO8601DateFormatter().string(from: startedAt)
        self.command = command
        self.scenarios = scenarios
    }

    /// Every figure of every scenario.
    public var figures: [Figure] { scenarios.flatMap(\.figures) }
}
