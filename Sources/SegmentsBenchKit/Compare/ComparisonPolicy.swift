/// The knobs of a wall-clock comparison: when a difference is significant, how the intervals are
/// computed, and the noise threshold of a figure without a calibrated one.
public struct ComparisonPolicy: Codable, Sendable, Hashable {
    /// A difference is significant only when the Mann-Whitney p-value is below this (0.01).
    public var alpha: Double
    /// Coverage of the bootstrap intervals (0.95).
    public var confidence: Double
    /// Bootstrap resamples per interval (10,000).
    public var resamples: Int
    /// Seed of the bootstrap; each figure mixes in its name, so figures do not share draws.
    public var seed: UInt64
    /// The noise threshold of a figure that the threshold file does not list (5%).
    public var defaultThreshold: NoiseThreshold

    /// Creates a policy.
    public init(
        alpha: Double = 0.01, confidence: Double = 0.95, resamples: Int = 10_000, seed: UInt64 = 1,
        defaultThreshold: NoiseThreshold = .default
    ) {
        self.alpha = alpha
        self.confidence = confidence
        self.resamples = resamples
        self.seed = seed
        self.defaultThreshold = defaultThreshold
    }

    /// The bootstrap of the figure called `name`: ``seed`` mixed with a hash of the name that is
    /// the same in every process (FNV-1a), so a figure's interval does not depend on which other
    /// figures were compared.
    public func bootstrap(for name: String) -> Bootstrap {
        var hash = FNV1a()
        hash.add(name.utf8)
        return Bootstrap(resamples: resamples, confidence: confidence, seed: seed ^ hash.value)
    }
}
