/// One measured number of a scenario, and how the regression gate treats it.
public struct Figure: Codable, Sendable, Hashable {
    /// Stable identifier, `<scenario>.<what>` (for example `tracking-storm.allocsPerEvent`).
    public var name: String
    /// The measured value.
    public var value: Double
    /// Unit for people: `ns`, `allocs/op`, `ratio`, `count`, `bytes`, `ops/s`.
    public var unit: String
    /// How the gate compares it with the baseline; `nil` is reported, never gated.
    public var gate: GateRule?
    /// Which way is better, for a figure not gated whose unit does not say (a ratio to a floor
    /// measured in the same run): `compare` then judges it over repetitions, and `merge` keeps the
    /// worst host's value. `nil` for times and rates, whose unit says, and for figures neither judges.
    public var direction: WallClockFigure.Direction?
    /// The name under which `compare` judges the latency percentile this figure repeats
    /// (``FigureSamples/latencyFigureName(scenario:latency:percentile:)``, `reporting.setter p50`):
    /// the percentile is then judged once, as this figure. `nil` for any other figure.
    public var restates: String?
    /// One line saying what it is.
    public var summary: String

    /// Creates a figure.
    public init(
        name: String, value: Double, unit: String, gate: GateRule? = nil, direction: WallClockFigure.Direction? = nil,
        restates: String? = nil, summary: String
    ) {
        self.name = name
        self.value = value
        self.unit = unit
        self.gate = gate
        self.direction = direction
        self.restates = restates
        self.summary = summary
    }
}

/// How a figure is gated. Only figures that are stable on a shared, noisy 2-core machine are gated:
/// allocation counts (tight), fetch/trigger ratios, correctness counters, and latencies only as a
/// ratio to a floor measured in the same run (loose).
public enum GateRule: Codable, Sendable, Hashable {
    /// Must equal `expected` in every run, whatever the baseline says (correctness: lost events,
    /// stale deliveries).
    case mustEqual(Double)
    /// Must not exceed `bound` in any run, whatever the baseline says: a limit the spec sets (at
    /// most one fetch per debounce window). A baseline-relative rule would fail a run that meets
    /// the spec after a lucky baseline, or pass one that breaks it after an unlucky one.
    case atMost(Double)
    /// Lower is better: fails when `value > baseline * (1 + relative) + absolute`; an improvement
    /// beyond the same tolerance is reported with a hint to update the baseline.
    case lowerIsBetter(relative: Double, absolute: Double)
    /// Higher is better: fails when `value < baseline * (1 - relative) - absolute`.
    case higherIsBetter(relative: Double, absolute: Double)

    /// Allocation counts: tight, half an allocation of slack.
    public static let allocations = GateRule.lowerIsBetter(relative: 0.05, absolute: 0.5)
    /// Allocations per event on a path that allocates only per batch: one allocation every 50
    /// events of slack (``allocations``' half an allocation would let every other event allocate).
    public static let allocationsPerEvent = GateRule.lowerIsBetter(relative: 0.05, absolute: 0.02)
    /// Ratios of a latency to a floor measured in the same run: loose, because on a shared 2-core
    /// machine a thread wake-up inside the measured span can cost more than the work itself.
    public static let latencyRatio = GateRule.lowerIsBetter(relative: 2.0, absolute: 1.0)
    /// Counts that must be zero.
    public static let zero = GateRule.mustEqual(0)

    /// `false` for a rule that cannot judge: a bound or tolerance that is not a finite number, or a
    /// negative tolerance (which would turn "worse" around). Such a figure is judged
    /// ``GateCheck/Verdict/invalid``.
    public var isWellFormed: Bool {
        switch self {
        case .mustEqual(let value), .atMost(let value): value.isFinite
        case .lowerIsBetter(let relative, let absolute), .higherIsBetter(let relative, let absolute):
            relative.isFinite && absolute.isFinite && relative >= 0 && absolute >= 0
        }
    }

    /// `true` for rules judged on the run alone (``mustEqual(_:)``, ``atMost(_:)``): a figure gated
    /// by one of them is checked even before it has a baseline.
    public var ignoresBaseline: Bool {
        switch self {
        case .mustEqual, .atMost: true
        case .lowerIsBetter, .higherIsBetter: false
        }
    }
}
