import Foundation

/// The outcome of `segments-bench compare`: every wall-clock figure's ``FigureComparison`` and how
/// the runs went. Written as `compare.json` (``write(to:)``), with `compare.md` beside it.
public struct ComparisonReport: Codable, Sendable {
    /// Format version.
    public var version = 1
    /// Build A.
    public var baselineBinary: String
    /// Build B.
    public var candidateBinary: String
    /// The scenarios run.
    public var scenarios: [String]
    /// Runs per build and scenario.
    public var repetitions: Int
    /// Whether the runs used `--quick`.
    public var quick: Bool
    /// The statistics' settings.
    public var policy: ComparisonPolicy
    /// The threshold file used, if any.
    public var thresholdFile: String?
    /// Every run, in order.
    public var runs: [InterleavedRunner.Record]
    /// Wall time of all the runs, in seconds.
    public var wallSeconds: Double
    /// The judged figures, in report order.
    public var figures: [FigureComparison]
    /// Figures that only the candidate measured: listed, not judged.
    public var candidateOnlyFigures: [String]
    /// Figures measured in some runs only (a percentile without enough samples in the others):
    /// listed, not judged.
    public var incompleteFigures: [String]
    /// The names of the figures that regressed (what fails the comparison), in report order.
    public var regressedFigures: [String]

    /// Judges every figure of `series` (see ``FigureSamples/validated()``).
    public init(
        baselineBinary: String, candidateBinary: String, scenarios: [String], repetitions: Int, quick: Bool,
        policy: ComparisonPolicy, thresholds: ThresholdFile?, thresholdFile: String?, runs: [InterleavedRunner.Record],
        wallSeconds: Double, series: [FigureSamples.Series], candidateOnlyFigures: [String],
        incompleteFigures: [String] = []
    ) {
        self.baselineBinary = baselineBinary
        self.candidateBinary = candidateBinary
        self.scenarios = scenarios
        self.repetitions = repetitions
        self.quick = quick
        self.policy = policy
        self.thresholdFile = thresholdFile
        self.runs = runs
        self.wallSeconds = wallSeconds
        self.candidateOnlyFigures = candidateOnlyFigures
        self.incompleteFigures = incompleteFigures
        self.figures = series.map { entry in
            let calibrated = thresholds?.threshold(for: entry.name)
            return FigureComparison(
                name: entry.name, unit: entry.unit, direction: entry.direction, baseline: entry.baseline,
                candidate: entry.candidate, threshold: calibrated ?? policy.defaultThreshold,
                thresholdSource: calibrated == nil ? .default : .calibrated, policy: policy)
        }
        self.regressedFigures = figures.filter { $0.verdict == .regressed }.map(\.name)
    }

    /// The figures with `verdict`.
    public func figures(_ verdict: FigureComparison.Verdict) -> [FigureComparison] {
        figures.filter { $0.verdict == verdict }
    }

    /// `true` when a figure regressed.
    public var regressed: Bool { !regressedFigures.isEmpty }

    /// ``CompareExitCode/regressed`` when a figure regressed, ``CompareExitCode/passed`` otherwise.
    public var exitCode: Int32 { regressed ? CompareExitCode.regressed : CompareExitCode.passed }

    /// The name of the JSON file in the output directory.
    public static let jsonName = "compare.json"
    /// The name of the Markdown file in the output directory.
    public static let markdownName = "compare.md"

    /// Writes `compare.json` and `compare.md` into `directory` (created if missing) and returns
    /// their URLs.
    ///
    /// - Throws: file system and encoding errors.
    @discardableResult
    public func write(to directory: URL) throws -> [URL] {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let json = directory.appendingPathComponent(Self.jsonName)
        let markdown = directory.appendingPathComponent(Self.markdownName)
        try ReportWriter.makeJSONEncoder().encode(self).write(to: json, options: .atomic)
        try Data(ComparisonText(self).markdown().utf8).write(to: markdown, options: .atomic)
        return [json, markdown]
    }

    /// Reads a `compare.json`.
    ///
    /// - Throws: file system and decoding errors.
    public static func load(from url: URL) throws -> ComparisonReport {
        try ReportWriter.makeJSONDecoder().decode(ComparisonReport.self, from: Data(contentsOf: url))
    }
}
