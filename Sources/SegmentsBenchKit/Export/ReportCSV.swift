/// A report as CSV (RFC 4180's quoting, rows ending in `\n`): a header, then a row per figure and per
/// latency statistic:
///
///     started_at,git_revision,host,scenario,kind,name,statistic,value,unit,better
///     2026-11-29T23:00:00Z,abc,ci,pull,figure,pull.requestsPerMiss,value,0.5,ratio,lower
///     2026-11-29T23:00:00Z,abc,ci,pull,latency,cache-hit,count,1200,count,
///     2026-11-29T23:00:00Z,abc,ci,pull,latency,cache-hit,p50,2353,ns,lower
///
/// Each row carries its run, so the files of many runs concatenate (less their headers) into one
/// table. `better` is `lower`, `higher` or empty where the figure does not say; values that are not
/// numbers are written `nan`, `inf` and `-inf`.
enum ReportCSV {
    static let header = "started_at,git_revision,host,scenario,kind,name,statistic,value,unit,better"

    static func render(_ values: ExportedValues) -> String {
        var text = header + "\n"
        let run = [values.run.startedAt, values.run.gitRevision, values.run.host]
        func row(_ fields: [String]) { text += (run + fields).map(field).joined(separator: ",") + "\n" }
        for figure in values.figures {
            row([figure.scenario, "figure", figure.name, "value", number(figure.value), figure.unit, better(figure.direction)])
        }
        for latency in values.latencies {
            row([latency.scenario, "latency", latency.name, "count", "\(latency.count)", "count", ""])
            for statistic in latency.statistics {
                row([latency.scenario, "latency", latency.name, statistic.label, number(statistic.nanoseconds), "ns", "lower"])
            }
        }
        return text
    }

    /// `value` quoted when it holds a comma, a quote or a line break, its quotes doubled; scalar
    /// by scalar, since a quote followed by a combining mark is one `Character` but still a quote.
    static func field(_ value: String) -> String {
        guard value.unicodeScalars.contains(where: { ",\"\r\n".unicodeScalars.contains($0) }) else { return value }
        var quoted = "\""
        for scalar in value.unicodeScalars {
            if scalar == "\"" { quoted += "\"" }
            quoted.unicodeScalars.append(scalar)
        }
        return quoted + "\""
    }

    /// A statistic: a recorded value as the integer it is, the mean as ``number(_:)-(Double)`` writes it.
    static func number(_ amount: ExportedValues.Amount) -> String {
        switch amount {
        case .whole(let value): "\(value)"
        case .fraction(let value): number(value)
        }
    }

    /// Whole numbers without a fraction, others in their shortest form, `nan`, `inf`, `-inf`.
    static func number(_ value: Double) -> String {
        if value.isNaN { return "nan" }
        if value.isInfinite { return value > 0 ? "inf" : "-inf" }
        if value == value.rounded(), abs(value) < 1e15 { return "\(Int64(value))" }
        return "\(value)"
    }

    private static func better(_ direction: WallClockFigure.Direction?) -> String {
        switch direction {
        case .lowerIsBetter: "lower"
        case .higherIsBetter: "higher"
        case nil: ""
        }
    }
}
