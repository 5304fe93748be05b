import Foundation

/// The committed reference figures (`Reports/baseline.json`) that `segments-bench check` compares
/// a run with.
public struct Baseline: Codable, Sendable {
    /// One gated figure as it was measured.
    public struct Entry: Codable, Sendable, Hashable {
        public var value: Double
        public var unit: String
        public var gate: GateRule
        public var summary: String
    }

    public var version = 1
    /// Where the baseline was measured.
    public var machine: MachineInfo
    public var gitRevision: String
    public var createdAt: String
    /// The command that produced the run the baseline was taken from.
    public var command: String
    /// Gated figures by name.
    public var figures: [String: Entry]

    /// A baseline from every gated figure of `report`.
    public init(from report: BenchReport) {
        machine = report.machine
        gitRevision = report.gitRevision
        createdAt = report.startedAt
        command = report.command
        var figures: [String: Entry] = [:]
        for figure in report.figures {
            guard let gate = figure.gate else { continue }
            figures[figure.name] = Entry(value: figure.value, unit: figure.unit, gate: gate, summary: figure.summary)
        }
        self.figures = figures
    }

    /// Reads a baseline file.
    public static func load(from url: URL) throws -> Baseline {
        try JSONDecoder().decode(Baseline.self, from: Data(contentsOf: url))
    }

    /// Writes the baseline as sorted, pretty-printed JSON (reviewable diffs).
    public func write(to url: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try encoder.encode(self).write(to: url, options: .atomic)
    }
}
