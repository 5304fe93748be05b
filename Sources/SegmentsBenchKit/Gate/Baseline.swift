import Foundation

/// The committed reference figures (`Reports/baseline.json`) that `segments-bench check` compares
/// a run with, and what they were measured with: the machine, the tool version and each
/// scenario's configuration, so that `check` can warn when a run differs from them.
///
/// Reading is tolerant in both directions: a field added later may be missing from an older file
/// (it takes its default, ``toolVersion`` and ``configuration`` are `nil`), and a field this
/// version does not know is ignored.
public struct Baseline: Codable, Sendable {
    /// One gated figure as it was measured.
    public struct Entry: Codable, Sendable, Hashable {
        public var value: Double
        public var unit: String
        public var gate: GateRule
        public var summary: String

        /// Creates an entry.
        public init(value: Double, unit: String, gate: GateRule, summary: String) {
            self.value = value
            self.unit = unit
            self.gate = gate
            self.summary = summary
        }

        private enum CodingKeys: String, CodingKey { case value, unit, gate, summary }

        /// Decodes an entry; `unit` and `summary` may be missing.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            value = try container.decode(Double.self, forKey: .value)
            unit = try container.decodeIfPresent(String.self, forKey: .unit) ?? ""
            gate = try container.decode(GateRule.self, forKey: .gate)
            summary = try container.decodeIfPresent(String.self, forKey: .summary) ?? ""
        }
    }

    public var version = 1
    /// Where the baseline was measured.
    public var machine: MachineInfo
    public var gitRevision: String
    public var createdAt: String
    /// The command that produced the run the baseline was taken from.
    public var command: String
    /// The ``ToolVersion`` of that run; `nil` in baselines written before it was recorded.
    public var toolVersion: String?
    /// Each scenario's configuration in that run (``ScenarioResult/configuration``) by scenario
    /// name; `nil` in baselines written before it was recorded.
    public var configuration: [String: [String: String]]?
    /// Gated figures by name.
    public var figures: [String: Entry]

    /// A baseline from every gated figure of `report`.
    public init(from report: BenchReport) {
        machine = report.machine
        gitRevision = report.gitRevision
        createdAt = report.startedAt
        command = report.command
        toolVersion = report.toolVersion
        configuration = Dictionary(report.scenarios.map { ($0.scenario, $0.configuration) }, uniquingKeysWith: { _, last in last })
        var figures: [String: Entry] = [:]
        for figure in report.figures {
            guard let gate = figure.gate else { continue }
            figures[figure.name] = Entry(value: figure.value, unit: figure.unit, gate: gate, summary: figure.summary)
        }
        self.figures = figures
    }

    private enum CodingKeys: String, CodingKey {
        case version, machine, gitRevision, createdAt, command, toolVersion, configuration, figures
    }

    /// Decodes a baseline; only `figures` is required (see the type's discussion).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try container.decodeIfPresent(Int.self, forKey: .version) ?? 1
        // A later format may change what a field means: read as this one, it would be misread.
        guard version <= 1 else {
            throw DecodingError.dataCorruptedError(
                forKey: .version, in: container,
                debugDescription: "format version \(version) of a baseline; this segments-bench reads version 1")
        }
        machine = try container.decodeIfPresent(MachineInfo.self, forKey: .machine)
            ?? MachineInfo(hostname: "unknown", cores: 0, memoryBytes: 0, cpuModel: "unknown", kernel: "unknown",
                           swiftVersion: "unknown", loadAverage: "unknown", jemalloc: "unavailable")
        gitRevision = try container.decodeIfPresent(String.self, forKey: .gitRevision) ?? "unknown"
        createdAt = try container.decodeIfPresent(String.self, forKey: .createdAt) ?? ""
        command = try container.decodeIfPresent(String.self, forKey: .command) ?? ""
        toolVersion = try container.decodeIfPresent(String.self, forKey: .toolVersion)
        configuration = try container.decodeIfPresent([String: [String: String]].self, forKey: .configuration)
        figures = try container.decode([String: Entry].self, forKey: .figures)
    }

    /// Reads a baseline file.
    ///
    /// - Throws: file system errors, and decoding errors for a file that is not a baseline.
    public static func load(from url: URL) throws -> Baseline {
        try decode(Data(contentsOf: url))
    }

    /// Reads baseline JSON.
    ///
    /// - Throws: decoding errors for data that is not a baseline.
    public static func decode(_ data: Data) throws -> Baseline {
        try ReportWriter.makeJSONDecoder().decode(Baseline.self, from: data)
    }

    /// Writes the baseline as sorted, pretty-printed JSON (reviewable diffs).
    public func write(to url: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try encoder.encode(self).write(to: url, options: .atomic)
    }
}
