import Foundation

/// How long the mock waits before it answers a request (applied to every outcome but a hang).
public enum LatencyDistribution: Sendable, Hashable {
    /// Answer at once.
    case none
    /// Always wait this long.
    case fixed(Duration)
    /// Wait a uniformly distributed time between the two bounds (in either order).
    case uniform(Duration, Duration)
    /// Wait an exponentially distributed time with this mean, capped at 20 × the mean so that a
    /// single unlucky draw cannot stall a test for minutes (the cap is hit with probability e⁻²⁰).
    case exponential(mean: Duration)

    /// The delay for a uniform draw `unit` in `0 ..< 1`; `nil` means no delay. Pure, so the seeded
    /// fault stream alone decides every latency.
    func delay(forUnit unit: Double) -> Duration? {
        let delay: Duration
        switch self {
        case .none:
            return nil
        case .fixed(let value):
            delay = value
        case .uniform(let first, let second):
            let low = min(first, second)
            let high = max(first, second)
            delay = low + (high - low) * unit
        case .exponential(let mean):
            // Inverse transform sampling; `1 - unit` is in (0, 1], so the logarithm is finite.
            let factor = min(-Foundation.log(1 - unit), 20)
            delay = mean * factor
        }
        return delay > .zero ? delay : nil
    }
}
