/// A point estimate with the interval around it: `[low estimate high]`.
public struct ConfidenceInterval: Codable, Sendable, Hashable {
    /// Lower bound.
    public var low: Double
    /// The estimate from the samples as measured (not a resample).
    public var estimate: Double
    /// Upper bound.
    public var high: Double

    /// Creates an interval.
    public init(low: Double, estimate: Double, high: Double) {
        self.low = low
        self.estimate = estimate
        self.high = high
    }

    /// `true` when `value` lies within `low ... high`, or a bound is not a number: an interval
    /// that cannot be told is not taken to exclude anything.
    public func contains(_ value: Double) -> Bool { !(value < low) && !(value > high) }
}
