/// Spelling rules of Prometheus' text exposition format (0.0.4) that the live metrics and the
/// exported report share.
enum PrometheusText {
    /// A label value with its backslashes, double quotes and line feeds escaped, scalar by scalar:
    /// a quote followed by a combining mark is one `Character` but still ends a value for a reader.
    static func escapedLabelValue(_ value: String) -> String {
        var escaped = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// A sample value: `NaN`, `+Inf`, `-Inf`, or the shortest decimal that reads back as `value`.
    static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        return "\(value)"
    }
}
