/// What the harness's clock (``monotonicNanoseconds()``) can resolve on this machine, measured once
/// per run and recorded with the machine.
///
/// A figure timed per operation with one clock read on each side cannot be trusted below a few
/// resolution steps plus the cost of the reads; ``isNear(_:)`` marks figures within
/// ``trustFactor`` times the resolution so that reports can say so.
public struct ClockResolution: Codable, Sendable, Hashable {
    /// The smallest nonzero difference between two consecutive reads, in nanoseconds.
    public var resolutionNs: Double
    /// The mean cost of one read, in nanoseconds.
    public var readCostNs: Double

    /// A figure whose value is below this many resolution steps is marked.
    public static let trustFactor = 10.0

    /// Creates a measurement.
    public init(resolutionNs: Double, readCostNs: Double) {
        self.resolutionNs = resolutionNs
        self.readCostNs = readCostNs
    }

    /// Measures the clock: `reads` consecutive reads; the smallest nonzero step between two of them
    /// is the resolution and the elapsed time over `reads` the cost of one read.
    public static func measure(reads: Int = 200_000) -> ClockResolution {
        let count = max(reads, 2)
        let start = monotonicNanoseconds()
        var previous = start
        var smallest = UInt64.max
        for _ in 1..<count {
            let now = monotonicNanoseconds()
            let step = now &- previous
            if step > 0 && step < smallest { smallest = step }
            previous = now
        }
        let cost = Double(previous &- start) / Double(count - 1)
        return ClockResolution(resolutionNs: smallest == .max ? .nan : Double(smallest), readCostNs: cost)
    }

    /// The figure's value in nanoseconds when its unit is a duration (`ns`, `µs`, `ms`, `s`);
    /// `nil` otherwise.
    static func nanoseconds(of figure: Figure) -> Double? {
        switch figure.unit {
        case "ns": figure.value
        case "µs", "us": figure.value * 1e3
        case "ms": figure.value * 1e6
        case "s": figure.value * 1e9
        default: nil
        }
    }

    /// `true` when `figure` is a duration below ``trustFactor`` times the resolution.
    public func isNear(_ figure: Figure) -> Bool {
        guard let value = Self.nanoseconds(of: figure), value.isFinite, resolutionNs.isFinite else { return false }
        return value < Self.trustFactor * resolutionNs
    }
}
