/// Why a comparison or calibration could not produce a verdict: the harness failed, not the code
/// under test. The command exits with ``CompareExitCode/harnessError`` on any of them.
public enum CompareError: Error, CustomStringConvertible, Equatable {
    /// No executable file at the path.
    case binaryMissing(path: String)
    /// A run exited with a non-zero status (or was killed by a signal).
    case runFailed(command: String, status: Int32, standardError: String)
    /// A run did not finish within its time limit and was terminated.
    case runTimedOut(command: String, seconds: Double)
    /// The command was told to end (``BenchChildren/endAll()``): its running build was ended and
    /// no other starts.
    case interrupted
    /// A run's output could not be read back.
    case outputUnreadable(path: String, reason: String)
    /// A wall-clock figure is not in every run of its scenario (or is not a number in some).
    case figureMissing(name: String, side: InterleavedSchedule.Side, runs: Int, expected: Int)
    /// A wall-clock figure was infinite or not a number in some runs of a build: those runs
    /// measured something wrong, and the figure cannot be judged.
    case figureNotFinite(name: String, side: InterleavedSchedule.Side, runs: Int, of: Int)
    /// A run reported a wall-clock figure more than once: which of its values is the figure is
    /// unknown.
    case figureDuplicated(name: String, side: InterleavedSchedule.Side, times: Int)
    /// The scenarios measured no wall-clock figure at all.
    case noWallClockFigures(scenarios: [String])
    /// A figure's unit differs between the builds (values in different units are not comparable).
    case unitChanged(name: String, baseline: String, candidate: String)

    public var description: String {
        switch self {
        case .binaryMissing(let path):
            "no executable segments-bench at \(path)"
        case .runFailed(let command, let status, let standardError):
            "`\(command)` failed with status \(status)" + (standardError.isEmpty ? "" : ":\n\(standardError)")
        case .runTimedOut(let command, let seconds):
            "`\(command)` did not finish within \(seconds == seconds.rounded() && abs(seconds) < 1e15 ? String(Int(seconds)) : String(seconds)) s and was terminated"
        case .interrupted:
            "interrupted: the running build was ended and no other was started"
        case .outputUnreadable(let path, let reason):
            "cannot read \(path): \(reason)"
        case .figureMissing(let name, let side, let runs, let expected):
            "figure \(name) is a number in \(runs) of the \(expected) runs of build \(side.rawValue)"
        case .figureNotFinite(let name, let side, let runs, let expected):
            "figure \(name) is infinite or not a number in \(runs) of the \(expected) runs of build \(side.rawValue)"
        case .figureDuplicated(let name, let side, let times):
            "figure \(name) is reported \(times) times in one run of build \(side.rawValue): it cannot be judged"
        case .noWallClockFigures(let scenarios):
            "no wall-clock figure (a time or a rate) in \(scenarios.joined(separator: ", "))"
        case .unitChanged(let name, let baseline, let candidate):
            "figure \(name) is in \(baseline) in the baseline build and in \(candidate) in the candidate: not comparable"
        }
    }
}

/// The exit statuses of `segments-bench compare` and `calibrate`.
public enum CompareExitCode {
    /// No figure regressed (calibrate: the threshold file is written).
    public static let passed: Int32 = 0
    /// At least one figure regressed.
    public static let regressed: Int32 = 2
    /// The command line is wrong (unknown option or scenario, too few repetitions, unreadable
    /// threshold file): EX_USAGE.
    public static let usage: Int32 = 64
    /// The harness failed (a ``CompareError``): EX_SOFTWARE.
    public static let harnessError: Int32 = 70
}
