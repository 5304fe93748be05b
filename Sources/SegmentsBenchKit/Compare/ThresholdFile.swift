import Foundation

/// The noise thresholds that `segments-bench calibrate` writes and `compare --threshold-file`
/// reads: one ``NoiseThreshold`` per wall-clock figure, with how it was measured.
///
/// JSON with sorted keys; an infinite threshold is written as the string `"Infinity"` (the
/// report's encoding, ``ReportWriter/makeJSONEncoder()``).
public struct ThresholdFile: Codable, Sendable {
    /// One figure's threshold.
    public struct Entry: Codable, Sendable, Hashable {
        /// The figure's unit.
        public var unit: String
        /// The threshold (relative change of the median, 0.05 = 5%).
        public var relative: Double
        /// The figure's median over all the same-build runs.
        public var median: Double
        /// How many same-build runs measured it.
        public var runs: Int

        /// Creates an entry.
        public init(unit: String, relative: Double, median: Double, runs: Int) {
            self.unit = unit
            self.relative = relative
            self.median = median
            self.runs = runs
        }
    }

    /// Format version.
    public var version = 1
    /// The binary that ran against itself.
    public var binary: String
    /// The scenarios it ran.
    public var scenarios: [String]
    /// Runs per group: the build ran `2 × repetitions` times per scenario.
    public var repetitions: Int
    /// The runs per side of the comparisons the thresholds are meant for (`compare --repetitions`):
    /// the size of the two groups each random split draws from the pooled runs.
    public var groupSize: Int
    /// Whether the runs used `--quick`.
    public var quick: Bool
    /// The quantile of `|ln(median ratio)|` over random splits that each threshold is.
    public var quantile: Double
    /// The thresholds by figure name.
    public var figures: [String: Entry]

    /// Creates a file's contents.
    public init(
        binary: String, scenarios: [String], repetitions: Int, groupSize: Int, quick: Bool, quantile: Double,
        figures: [String: Entry]
    ) {
        self.binary = binary
        self.scenarios = scenarios
        self.repetitions = repetitions
        self.groupSize = groupSize
        self.quick = quick
        self.quantile = quantile
        self.figures = figures
    }

    /// Calibrates every figure of same-build `samples` (both sides pooled) with
    /// ``NoiseThreshold/calibrate(sameBuild:groupSize:splits:quantile:seed:)``, in groups of
    /// `groupSize` runs.
    public init(
        calibrating samples: [FigureSamples.Series], binary: String, scenarios: [String], repetitions: Int,
        groupSize: Int, quick: Bool, quantile: Double = 0.95, seed: UInt64 = 1
    ) {
        var figures: [String: Entry] = [:]
        for series in samples {
            let pooled = series.baseline + series.candidate
            guard pooled.count >= 2 else { continue }
            let threshold = NoiseThreshold.calibrate(
                sameBuild: pooled, groupSize: groupSize, quantile: quantile, seed: seed)
            figures[series.name] = Entry(
                unit: series.unit, relative: threshold.relative, median: SampleStatistics.median(pooled),
                runs: pooled.count)
        }
        self.init(
            binary: binary, scenarios: scenarios, repetitions: repetitions, groupSize: groupSize, quick: quick,
            quantile: quantile, figures: figures)
    }

    /// The threshold of the figure called `name`, if calibrated.
    public func threshold(for name: String) -> NoiseThreshold? {
        figures[name].map { NoiseThreshold(relative: $0.relative) }
    }

    /// Reads a file.
    ///
    /// - Throws: file system and decoding errors; ``Invalid`` for a file of another format version,
    ///   a group size under 2, or a threshold that is negative or not a number.
    public static func load(from url: URL) throws -> ThresholdFile {
        let file = try ReportWriter.makeJSONDecoder().decode(ThresholdFile.self, from: Data(contentsOf: url))
        try file.validate()
        return file
    }

    /// Why a threshold file's contents cannot be used.
    public struct Invalid: Error, CustomStringConvertible {
        public let description: String
    }

    /// Refuses what ``load(from:)`` refuses (an infinite threshold is valid: the figure is not gated).
    func validate() throws(Invalid) {
        guard version == 1 else { throw Invalid(description: "format version \(version); this segments-bench reads version 1") }
        guard groupSize >= 2 else { throw Invalid(description: "groupSize \(groupSize) is below 2") }
        for (name, entry) in figures.sorted(by: { $0.key < $1.key }) where entry.relative.isNaN || entry.relative < 0 {
            throw Invalid(description: "\(name)'s threshold \(entry.relative) is not a share of 0 or more")
        }
    }

    /// Writes the file atomically, creating its directory if missing.
    ///
    /// - Throws: file system and encoding errors.
    public func write(to url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try ReportWriter.makeJSONEncoder().encode(self).write(to: url, options: .atomic)
    }
}
