import Foundation

/// Runs two builds (or one build twice, for a calibration) in the order of an
/// ``InterleavedSchedule`` and gathers their wall-clock figures.
///
/// ``run()`` blocks the calling thread for the whole schedule: one subprocess at a time, so the
/// builds never compete with each other for the machine. Each run writes into its own directory
/// under a fresh temporary directory, which is removed at the end, whether the runs succeeded or not.
public struct InterleavedRunner: Sendable {
    /// What one run took.
    public struct Record: Codable, Sendable, Hashable {
        /// Position in the schedule, from 1.
        public var index: Int
        /// The run.
        public var run: InterleavedSchedule.Run
        /// Its wall time, process start to exit, in seconds.
        public var seconds: Double
    }

    /// What all the runs gathered.
    public struct Outcome: Sendable {
        /// The figures' values.
        public var samples: FigureSamples
        /// Every run, in order.
        public var records: [Record]
        /// Wall time of the whole schedule, in seconds.
        public var seconds: Double
    }

    /// Build A.
    public var baseline: BenchBinary
    /// Build B (the same binary as A in a calibration).
    public var candidate: BenchBinary
    /// The order of the runs.
    public var schedule: InterleavedSchedule
    /// Passes `--quick` to every run.
    public var quick: Bool
    /// Where progress lines go.
    public var progress: Progress

    /// Creates a runner.
    public init(
        baseline: BenchBinary, candidate: BenchBinary, schedule: InterleavedSchedule, quick: Bool, progress: Progress
    ) {
        self.baseline = baseline
        self.candidate = candidate
        self.schedule = schedule
        self.quick = quick
        self.progress = progress
    }

    /// Runs the schedule.
    ///
    /// - Throws: the first ``CompareError`` (the remaining runs are skipped), or a file system
    ///   error creating the temporary directory.
    public func run() throws -> Outcome {
        try baseline.validate()
        try candidate.validate()
        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("segments-bench-compare-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        var samples = FigureSamples()
        var records: [Record] = []
        let start = monotonicNanoseconds()
        for (offset, run) in schedule.runs.enumerated() {
            let binary = run.side == .baseline ? baseline : candidate
            let directory = scratch.appendingPathComponent(String(format: "run-%04d", offset + 1), isDirectory: true)
            let runStart = monotonicNanoseconds()
            let report = try binary.run(scenario: run.scenario, quick: quick, in: directory)
            let seconds = Double(monotonicNanoseconds() - runStart) / 1e9
            try? FileManager.default.removeItem(at: directory)
            samples.add(report, scenario: run.scenario, side: run.side)
            records.append(Record(index: offset + 1, run: run, seconds: seconds))
            progress.say(
                "\(offset + 1)/\(schedule.runs.count)  \(run.side.rawValue)  \(run.scenario)  repetition \(run.repetition + 1)  "
                    + String(format: "%.1f s", seconds))
        }
        return Outcome(samples: samples, records: records, seconds: Double(monotonicNanoseconds() - start) / 1e9)
    }
}
