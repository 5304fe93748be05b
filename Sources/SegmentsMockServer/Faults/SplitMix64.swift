/// SplitMix64 (Steele, Lea and Flood, 2014): a tiny, fast, seedable generator whose output is the
/// same on every platform and Swift version, which `SystemRandomNumberGenerator` cannot promise.
/// Fault sequences are derived from it so that a seed reproduces a run.
///
/// Not thread-safe: a value type, owned by whoever holds it (the fault injector keeps one per
/// endpoint behind its lock).
public struct SplitMix64: RandomNumberGenerator, Sendable, Hashable {
    private var state: UInt64

    /// Creates a generator; equal seeds give equal sequences.
    public init(seed: UInt64) { self.state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform value in `0 ..< 1` with 53 bits of precision (the top bits of `next()`).
    mutating func nextUnit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }
}
