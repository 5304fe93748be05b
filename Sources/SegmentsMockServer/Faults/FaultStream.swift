/// One endpoint's deterministic sequence of fault decisions: a seeded generator plus the error
/// status rotation. Pure value type; ``FaultInjector`` keeps one per endpoint behind its lock.
///
/// Every call to ``next(for:)`` consumes exactly three random draws (outcome, latency, variant),
/// whatever the profile, so a stream stays aligned with the request sequence even when a profile
/// is edited between runs.
struct FaultStream: Sendable, Hashable {
    /// How many variants of malformed bodies the ways in know.
    static let malformedVariants = 3

    private var generator: SplitMix64
    private var errorRotation = 0

    /// Creates the stream of `endpoint` for the plan seed `seed`.
    init(seed: UInt64, endpoint: MockEndpoint) {
        // Spread the endpoints apart with the golden-ratio increment so nearby seeds and
        // endpoints do not produce overlapping sequences.
        self.generator = SplitMix64(seed: seed ^ ((endpoint.streamIndex &+ 1) &* 0x9E37_79B9_7F4A_7C15))
    }

    /// The decision for the next request under `profile`.
    mutating func next(for profile: FaultProfile) -> FaultDecision {
        let outcomeDraw = generator.nextUnit()
        let latencyDraw = generator.nextUnit()
        let variantDraw = generator.next()

        let outcome: FaultDecision.Outcome
        var threshold = 0.0
        func hits(_ rate: Double) -> Bool {
            // NaN compares false with everything, so `max` would let it through: counted as 0.
            threshold += rate.isNaN ? 0 : min(max(rate, 0), 1)
            return outcomeDraw < threshold
        }
        if hits(profile.hangRate) {
            return FaultDecision(outcome: .hang(limit: max(profile.maxHang, .zero)), delay: nil)
        } else if hits(profile.resetRate) {
            outcome = .reset
        } else if hits(profile.truncatedRate) {
            outcome = .truncated
        } else if hits(profile.malformedRate) {
            outcome = .malformed(variant: Int(variantDraw % UInt64(Self.malformedVariants)))
        } else if hits(profile.errorRate) {
            let errors = profile.errorStatuses.filter { (400...599).contains($0) }
            let statuses = errors.isEmpty ? [500] : errors
            outcome = .error(status: statuses[errorRotation % statuses.count])
            errorRotation += 1
        } else {
            outcome = .pass
        }
        return FaultDecision(outcome: outcome, delay: profile.latency.delay(forUnit: latencyDraw))
    }
}
