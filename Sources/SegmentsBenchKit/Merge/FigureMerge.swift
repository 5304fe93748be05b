/// How one figure measured on several hosts becomes one figure of the merged report, and what
/// the merged report says about it.
///
/// - Correctness rules (``GateRule/mustEqual(_:)``): the expected value when every host has it,
///   else the first host's other value, so that one failing host fails the merged gate (for
///   ``GateRule/zero`` counters: the sum, nonzero when any host's is).
/// - Limits (``GateRule/atMost(_:)``): the highest host's value.
/// - Counts (unit `count`) and rates (units ending in `/s`): the sum over hosts.
/// - Anything else (ratios, latencies, allocations per operation, sizes): never averaged; the
///   worst host's value (the highest, or the lowest for ``GateRule/higherIsBetter(relative:absolute:)``
///   and for an ungated figure whose ``Figure/direction`` is higher-is-better), with every host's
///   value and their spread in a note.
///
/// A non-finite value on any host makes the merged value non-finite (the gate refuses it).
enum FigureMerge {
    /// What merging did to a figure.
    enum Kind: Equatable {
        case correctness, limit, sum, worst
    }

    static func kind(of figure: Figure) -> Kind {
        switch figure.gate {
        case .mustEqual: return .correctness
        case .atMost: return .limit
        default: break
        }
        // A sum over hosts is N times a single host's value: never for a figure gated against a
        // (single-host) baseline.
        if figure.gate == nil, figure.unit == "count" || figure.unit.hasSuffix("/s") { return .sum }
        return .worst
    }

    /// The merged figure and, where hosts' values were not added, a note with each host's value.
    static func merge(_ measured: [(host: String, figure: Figure)]) -> (figure: Figure, note: String?) {
        var merged = measured[0].figure
        // The worst host's value is not the added histogram's percentile.
        if measured.count > 1 { merged.restates = nil }
        let values = measured.map(\.figure.value)
        let kind = kind(of: merged)
        if values.contains(where: { !$0.isFinite }) {
            merged.value = .nan
        } else {
            switch kind {
            case .correctness:
                let expected: Double = if case let .mustEqual(value) = merged.gate { value } else { 0 }
                if expected == 0 {
                    merged.value = values.reduce(0) { $0 + abs($1) }
                } else {
                    merged.value = values.first { $0 != expected } ?? expected
                }
            case .limit:
                merged.value = values.max()!
            case .sum:
                merged.value = values.reduce(0, +)
            case .worst:
                if case .higherIsBetter = merged.gate {
                    merged.value = values.min()!
                } else if merged.gate == nil, WallClockFigure.direction(of: merged) == .higherIsBetter {
                    merged.value = values.min()!
                } else {
                    merged.value = values.max()!
                }
            }
        }
        guard measured.count > 1, kind != .sum || values.contains(where: { !$0.isFinite }) else { return (merged, nil) }
        let perHost = measured.map { "\($0.host) \(ReportFormat.value(of: $0.figure))" }.joined(separator: ", ")
        let finite = values.filter(\.isFinite)
        let spread = finite.count == values.count ? (finite.max()! - finite.min()!) : .nan
        let how = switch kind {
        case .correctness: "any host off its expected value fails"
        case .limit: "the highest host's value"
        case .sum: "the sum"
        case .worst: merged.gate == nil && WallClockFigure.direction(of: merged) == nil
            ? "the highest host's value, never an average (not gated: which way is worse is not recorded)"
            : "the worst host's value, never an average"
        }
        return (merged, "`\(merged.name)` per host: \(perHost); spread (max − min) \(ReportFormat.value(spread, unit: merged.unit)); merged: \(how).")
    }
}
