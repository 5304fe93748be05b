import Foundation

/// One axis of a chart: its title, its domain in data units, linear or logarithmic mapping, and
/// labelled ticks (each with a gridline).
struct ChartAxis {
    /// How data values map to positions.
    enum Scale {
        /// Equal distances for equal differences.
        case linear
        /// Equal distances for equal ratios; every value in the domain is positive.
        case logarithmic
    }

    /// A gridline position and its label (empty labels draw only the gridline).
    struct Tick {
        var value: Double
        var label: String
    }

    var title: String
    var scale: Scale
    var lower: Double
    var upper: Double
    var ticks: [Tick]

    /// Where `value` lies between `lower` (0) and `upper` (1); outside the domain gives values
    /// outside 0...1, which the chart's clip path cuts off.
    func fraction(of value: Double) -> Double {
        switch scale {
        case .linear:
            // Halved first: an axis may span the whole range of Doubles, whose width overflows.
            return upper > lower ? (value / 2 - lower / 2) / (upper / 2 - lower / 2) : 0.5
        case .logarithmic:
            let low = log10(lower)
            let high = log10(upper)
            return high > low ? (log10(value) - low) / (high - low) : 0.5
        }
    }

    /// Whether the axis can show `value` at all (logarithmic axes cannot show zero or less).
    func canShow(_ value: Double) -> Bool {
        value.isFinite && (scale == .linear || value > 0)
    }

    /// A linear axis over `values` with about five "nice" ticks (steps of 1, 2 or 5 × 10ⁿ).
    /// `includeZero` starts the axis at zero for positive data, so bar lengths and heights compare
    /// honestly.
    static func linear(title: String, values: [Double], includeZero: Bool, format: (Double) -> String) -> ChartAxis {
        let finite = values.filter(\.isFinite)
        var low = finite.min() ?? 0
        var high = finite.max() ?? 1
        if includeZero {
            low = min(low, 0)
            high = max(high, 0)
        }
        if high == low {
            // A single value still needs a visible range around it.
            let pad = low == 0 ? 1 : abs(low) * 0.5
            low = includeZero && low >= 0 ? 0 : low - pad
            high += pad
        }
        // Near the largest Doubles the padding, the span or the rounded ends overflow: the axis
        // then ends at the largest finite values, and the ticks are bounded, not counted by a step
        // that no longer moves the value.
        low = max(low, -Double.greatestFiniteMagnitude)
        high = min(high, Double.greatestFiniteMagnitude)
        let step = niceStep(high / 5 - low / 5)
        let lower = max(floor(low / step) * step, -Double.greatestFiniteMagnitude)
        let upper = min(ceil(high / step) * step, Double.greatestFiniteMagnitude)
        var ticks: [Tick] = []
        var index = 0.0
        while index <= 10 {
            // Multiplying instead of accumulating keeps ticks like 0.3 exact enough to print.
            let value = lower + index * step
            guard value.isFinite, value - upper <= step * 1e-9 else { break }
            ticks.append(Tick(value: abs(value) < step * 1e-9 ? 0 : value, label: format(abs(value) < step * 1e-9 ? 0 : value)))
            index += 1
        }
        return ChartAxis(title: title, scale: .linear, lower: lower, upper: upper, ticks: ticks)
    }

    /// A logarithmic axis over the positive `values`, from the decade below the smallest to the
    /// decade above the largest. Decades are labelled; when the axis spans at most three decades,
    /// 2× and 5× are labelled too, so a narrow range still has enough labels to read values.
    static func logarithmic(title: String, values: [Double], format: (Double) -> String) -> ChartAxis {
        let positive = values.filter { $0.isFinite && $0 > 0 }
        let low = positive.min() ?? 1
        let high = positive.max() ?? 10
        let lowerExponent = floor(log10(low))
        var upperExponent = ceil(log10(high))
        if upperExponent <= lowerExponent { upperExponent = lowerExponent + 1 }
        let decades = upperExponent - lowerExponent
        var ticks: [Tick] = []
        var exponent = lowerExponent
        while exponent <= upperExponent {
            let decade = pow(10, exponent)
            ticks.append(Tick(value: decade, label: format(decade)))
            if exponent < upperExponent {
                for multiple in 2...9 {
                    let value = Double(multiple) * decade
                    let labelled = decades <= 3 && (multiple == 2 || multiple == 5)
                    ticks.append(Tick(value: value, label: labelled ? format(value) : ""))
                }
            }
            exponent += 1
        }
        let lower = pow(10, lowerExponent)
        let upper = pow(10, upperExponent)
        return ChartAxis(
            title: title, scale: .logarithmic, lower: lower, upper: upper,
            ticks: ticks.filter { $0.value >= lower * 0.999 && $0.value <= upper * 1.001 })
    }

    /// An axis whose ticks sit exactly at the given data values (for series with few distinct x
    /// values, such as a handful of callback counts), with a margin so that the outermost points and
    /// their labels are not drawn on the plot's edge.
    static func atValues(title: String, values: [Double], scale: Scale, format: (Double) -> String) -> ChartAxis {
        let distinct = Array(Set(values.filter { $0.isFinite && (scale == .linear || $0 > 0) })).sorted()
        guard let first = distinct.first, let last = distinct.last else {
            return linear(title: title, values: [], includeZero: true, format: format)
        }
        let ticks = distinct.map { Tick(value: $0, label: format($0)) }
        switch scale {
        case .linear:
            let pad = last > first ? (last - first) * 0.06 : max(abs(first) * 0.5, 1)
            return ChartAxis(title: title, scale: .linear, lower: first - pad, upper: last + pad, ticks: ticks)
        case .logarithmic:
            let span = log10(last) - log10(first)
            let pad = span > 0 ? span * 0.06 : 0.5
            return ChartAxis(
                title: title, scale: .logarithmic, lower: pow(10, log10(first) - pad), upper: pow(10, log10(last) + pad),
                ticks: ticks)
        }
    }

    /// 1, 2 or 5 × 10ⁿ, the smallest at least `rough`.
    private static func niceStep(_ rough: Double) -> Double {
        guard rough > 0, rough.isFinite else { return 1 }
        let magnitude = pow(10, floor(log10(rough)))
        for multiple in [1.0, 2, 5, 10] where multiple * magnitude >= rough * 0.999 {
            return multiple * magnitude
        }
        return 10 * magnitude
    }

    /// Whether values spread over more than two decades, which is when a logarithmic axis shows
    /// them better than a linear one. Needs every value positive.
    static func spansMoreThanTwoDecades(_ values: [Double]) -> Bool {
        let finite = values.filter(\.isFinite)
        guard let low = finite.min(), let high = finite.max(), low > 0 else { return false }
        return high / low > 100
    }
}
