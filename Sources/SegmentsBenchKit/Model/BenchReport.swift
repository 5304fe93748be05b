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
    /// The ``ToolVersion`` that wrote it; `unknown` for reports written before it was recorded.
    public var toolVersion: String
    public var scenarios: [ScenarioResult]
    /// The runs a merged report was made from (`segments-bench merge`); `nil` for a single run.
    public var mergedFrom: [RunIdentity]?
    /// Why the run ended before its last scenario (a signal, and the scenario it interrupted);
    /// `nil` for a run that finished. Such a report holds the scenarios that finished, and fails
    /// the gate.
    public var interrupted: String?

    /// Creates a report, made by this ``ToolVersion`` unless told otherwise.
    public init(
        machine: MachineInfo, gitRevision: String, startedAt: Date, command: String, scenarios: [ScenarioResult],
        toolVersion: String = ToolVersion.current
    ) {
        self.machine = machine
        self.gitRevision = gitRevision
        self.startedAt = ISO8601DateFormatter().string(from: startedAt)
        self.command = command
        self.toolVersion = toolVersion
        self.scenarios = scenarios
    }

    private enum CodingKeys: String, CodingKey {
        case version, machine, gitRevision, startedAt, command, toolVersion, scenarios, mergedFrom, interrupted
    }

    /// Decodes a report. Fields added after the first version may be missing (they take their
    /// defaults) and unknown fields are ignored, so a newer or older report still reads.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try container.decodeIfPresent(Int.self, forKey: .version) ?? 1
        // A later format may change what a field means: read as this one, it would be misread.
        guard version <= 1 else {
            throw DecodingError.dataCorruptedError(
                forKey: .version, in: container,
                debugDescription: "format version \(version) of a report; this segments-bench reads version 1")
        }
        machine = try container.decode(MachineInfo.self, forKey: .machine)
        gitRevision = try container.decodeIfPresent(String.self, forKey: .gitRevision) ?? "unknown"
        startedAt = try container.decodeIfPresent(String.self, forKey: .startedAt) ?? ""
        command = try container.decodeIfPresent(String.self, forKey: .command) ?? ""
        toolVersion = try container.decodeIfPresent(String.self, forKey: .toolVersion) ?? "unknown"
        scenarios = try container.decode([ScenarioResult].self, forKey: .scenarios)
        mergedFrom = try container.decodeIfPresent([RunIdentity].self, forKey: .mergedFrom)
        interrupted = try container.decodeIfPresent(String.self, forKey: .interrupted)
    }

    /// Every figure of every scenario.
    public var figures: [Figure] { scenarios.flatMap(\.figures) }
}
