/// Which figures of a report are wall-clock measurements, and which way is better.
///
/// A figure is wall-clock when its unit is a time (`ns`, `µs`, `us`, `ms`, `s`: lower is better)
/// or a rate per second (`ops/s`, anything ending in `/s`: higher is better), or when it states
/// its ``Figure/direction`` (a ratio of two timings of the same run, which follows the machine's
/// load as a time does). Allocation counts and correctness counters are left to the baseline gate,
/// which trusts them from a single run.
public enum WallClockFigure {
    /// Units of time.
    public static let timeUnits: Set<String> = ["ns", "µs", "us", "ms", "s"]

    /// The direction of `figure` if it is wall-clock, `nil` otherwise.
    public static func direction(of figure: Figure) -> Direction? {
        figure.direction ?? direction(unit: figure.unit)
    }

    /// The direction of a figure measured in `unit`, `nil` if that is not a wall-clock unit.
    public static func direction(unit: String) -> Direction? {
        if timeUnits.contains(unit) { return .lowerIsBetter }
        if unit.hasSuffix("/s") { return .higherIsBetter }
        return nil
    }

    /// Which way a figure improves.
    public enum Direction: String, Codable, Sendable {
        /// Times: a higher median is a regression.
        case lowerIsBetter
        /// Rates: a lower median is a regression.
        case higherIsBetter
    }
}
