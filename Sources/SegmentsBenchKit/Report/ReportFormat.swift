import Foundation

/// How numbers read in reports: durations in human units, figure values with their unit, gate rules
/// in words. Shared by `summary.md`, `index.html` and the charts, so a number looks the same in all
/// three, and usable by anything else that prints figures (the regression gate's messages).
///
/// Output never depends on the locale: reports are compared across machines and kept in git.
public enum ReportFormat {
    /// A duration in nanoseconds in the largest unit that keeps it at least 1, with three
    /// significant digits: `142 ns`, `1.42 µs`, `14.2 µs`, `1.20 ms`, `2.50 s`.
    /// Whole nanoseconds below 1 µs print without decimals; non-finite values print as `n/a`.
    public static func humanDuration(ns: Double) -> String { humanDuration(ns: ns, digits: 3) }

    /// ``humanDuration(ns:)`` with `digits` significant digits.
    public static func humanDuration(ns: Double, digits: Int) -> String {
        guard ns.isFinite else { return "n/a" }
        if ns < 0 { return "-" + humanDuration(ns: -ns, digits: digits) }
        if ns == 0 { return "0 ns" }
        // Round first, so that 999.7 ns reads as 1.00 µs rather than 1000 ns.
        let rounded = roundedToSignificantDigits(ns, digits)
        let units: [(scale: Double, name: String)] = [(1e9, "s"), (1e6, "ms"), (1e3, "µs")]
        for unit in units where rounded >= unit.scale {
            let value = rounded / unit.scale
            if value >= 1000 { return grouped(value.rounded()) + " " + unit.name }
            return fixedSignificant(value, digits) + " " + unit.name
        }
        if rounded == rounded.rounded() { return grouped(rounded) + " ns" }
        return fixedSignificant(rounded, digits) + " ns"
    }

    /// A duration for axis ticks: ``humanDuration(ns:)`` without trailing zeros (`1 µs`, `2.5 ms`),
    /// since a tick's position already says how precise it is.
    static func compactDuration(ns: Double) -> String {
        let text = humanDuration(ns: ns)
        guard let space = text.lastIndex(of: " ") else { return text }
        return trimmingZeros(String(text[..<space])) + text[space...]
    }

    /// A figure's value with its unit: nanoseconds as ``humanDuration(ns:)``, `bytes` in KiB/MiB/GiB,
    /// `ratio` as `1.25×`, `count` as a grouped integer, anything else as `<number> <unit>`.
    public static func value(_ value: Double, unit: String) -> String {
        guard value.isFinite else { return "n/a" }
        switch unit {
        case "ns": return humanDuration(ns: value)
        case "bytes": return bytes(value)
        case "ratio": return number(value) + "×"
        case "count", "": return number(value)
        default: return number(value) + " " + unit
        }
    }

    /// A figure's value with its unit (see ``value(_:unit:)``).
    public static func value(of figure: Figure) -> String { value(figure.value, unit: figure.unit) }

    /// A latency percentile for a table cell: the duration, or `—` when the distribution has too
    /// few samples for it (see ``LatencySummary``).
    static func percentile(_ value: UInt64?) -> String {
        value.map { humanDuration(ns: Double($0)) } ?? "—"
    }

    /// The footnote under a latency table with a `—`: why a percentile is left out.
    static let omittedPercentileNote =
        "— too few samples for that percentile: p50 and max need at least 1, p90 10, p99 100, p99.9 1,000 and p99.99 10,000 (see Count)."

    /// The mark of a figure within ``ClockResolution/trustFactor`` times the clock's resolution.
    static let nearResolutionMark = "‡"

    /// The clock's resolution and read cost in words, with what ``nearResolutionMark`` means;
    /// `not measured` for reports written before it was.
    static func clock(_ clock: ClockResolution?) -> String {
        guard let clock else { return "not measured" }
        return "resolution \(humanDuration(ns: clock.resolutionNs)), \(humanDuration(ns: clock.readCostNs)) per read "
            + "(\(nearResolutionMark): a duration under \(number(ClockResolution.trustFactor))× the resolution)"
    }

    /// `figure`'s value (see ``value(of:)``) with ``nearResolutionMark`` when it is a duration within
    /// ``ClockResolution/trustFactor`` times `clock`'s resolution.
    static func value(of figure: Figure, clock: ClockResolution?) -> String {
        value(of: figure) + (clock?.isNear(figure) == true ? " " + nearResolutionMark : "")
    }

    /// The gate rule in words: `must be 0`, `≤ baseline +5% +0.5`, `≥ baseline -10%`, or `reported`
    /// for a figure that is never gated. Absolute slack is in the figure's unit.
    public static func describe(_ rule: GateRule?, unit: String) -> String {
        switch rule {
        case nil:
            return "reported"
        case .mustEqual(let expected):
            return "must be " + (unit == "ns" ? humanDuration(ns: expected) : number(expected))
        case .atMost(let bound):
            return "at most " + (unit == "ns" ? humanDuration(ns: bound) : number(bound))
        case .lowerIsBetter(let relative, let absolute):
            return "≤ baseline" + tolerance(relative: relative, absolute: absolute, sign: "+", unit: unit)
        case .higherIsBetter(let relative, let absolute):
            return "≥ baseline" + tolerance(relative: relative, absolute: absolute, sign: "-", unit: unit)
        }
    }

    private static func tolerance(relative: Double, absolute: Double, sign: String, unit: String) -> String {
        var text = ""
        if relative != 0 { text += " \(sign)\(number(relative * 100))%" }
        if absolute != 0 { text += " \(sign)" + (unit == "ns" ? humanDuration(ns: absolute) : number(absolute)) }
        return text
    }

    /// A plain number: whole values (and anything of 1000 or more) as grouped integers (`12,345`),
    /// smaller ones with three significant digits and no trailing zeros (`0.25`, `3.14`).
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "n/a" }
        if value < 0 { return "-" + number(-value) }
        if value == value.rounded() || value >= 1000 { return grouped(value.rounded()) }
        return trimmingZeros(fixedSignificant(value, 3))
    }

    /// A compact number for axis ticks, where space is short: `500`, `2.5k`, `10k`, `1.2M`, `0.05`.
    static func compact(_ value: Double) -> String {
        guard value.isFinite else { return "n/a" }
        if value < 0 { return "-" + compact(-value) }
        let steps: [(scale: Double, suffix: String)] = [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")]
        for step in steps where value >= step.scale {
            return trimmingZeros(fixedSignificant(value / step.scale, 3)) + step.suffix
        }
        if value == value.rounded() { return grouped(value) }
        return trimmingZeros(fixedSignificant(value, 3))
    }

    /// A byte count in binary units with three significant digits (`512 B`, `1.50 KiB`, `3.20 MiB`).
    static func bytes(_ value: Double) -> String {
        guard value.isFinite else { return "n/a" }
        let units: [(scale: Double, name: String)] = [(0x1p40, "TiB"), (0x1p30, "GiB"), (0x1p20, "MiB"), (0x1p10, "KiB")]
        for unit in units where value >= unit.scale {
            return fixedSignificant(value / unit.scale, 3) + " " + unit.name
        }
        return number(value) + " B"
    }

    /// A count with thousands separators: `20,000`.
    static func grouped(_ value: UInt64) -> String {
        let digits = Array(String(value))
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return result
    }

    private static func grouped(_ value: Double) -> String {
        // Beyond UInt64 a grouped integer means nothing to a reader; scientific notation does.
        guard value.magnitude < 1.8e19 else { return String(format: "%.3g", value) }
        return (value < 0 ? "-" : "") + grouped(UInt64(value.magnitude))
    }

    /// `value` (positive) rounded to `digits` significant digits.
    static func roundedToSignificantDigits(_ value: Double, _ digits: Int) -> Double {
        guard value > 0, value.isFinite else { return value }
        let scale = pow(10, Double(digits - 1) - floor(log10(value)))
        return (value * scale).rounded() / scale
    }

    /// `value` (positive, below 1000) printed with exactly `digits` significant digits.
    private static func fixedSignificant(_ value: Double, _ digits: Int) -> String {
        let rounded = roundedToSignificantDigits(value, digits)
        let magnitude = rounded > 0 ? Int(floor(log10(rounded))) : 0
        let decimals = min(max(digits - 1 - magnitude, 0), 9)
        return String(format: "%.\(decimals)f", rounded)
    }

    private static func trimmingZeros(_ text: String) -> String {
        guard text.contains(".") else { return text }
        var trimmed = Substring(text)
        while trimmed.hasSuffix("0") { trimmed = trimmed.dropLast() }
        if trimmed.hasSuffix(".") { trimmed = trimmed.dropLast() }
        return String(trimmed)
    }

    /// A file-name-safe form of `name`: lowercase ASCII letters and digits, everything else collapsed
    /// into single `-` (`trackEvent call` → `trackevent-call`), `unnamed` when nothing is left.
    /// Names come from scenarios and charts, so this also keeps them from escaping the directory.
    static func slug(_ name: String) -> String {
        var result = ""
        var pendingDash = false
        for scalar in name.lowercased().unicodeScalars {
            if scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar)) {
                if pendingDash && !result.isEmpty { result.append("-") }
                pendingDash = false
                result.unicodeScalars.append(scalar)
            } else {
                pendingDash = true
            }
        }
        return result.isEmpty ? "unnamed" : result
    }
}
