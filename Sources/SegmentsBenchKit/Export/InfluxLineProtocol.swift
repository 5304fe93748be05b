/// A report in InfluxDB's line protocol (precision: nanoseconds), one point per line:
///
///     segments_bench_figure,scenario=pull,figure=pull.requestsPerMiss,unit=ratio,host=ci value=0.5,git_revision="abc" 1764460800000000000
///     segments_bench_latency,scenario=pull,latency=cache-hit,host=ci count=1200i,min_ns=310i,p50_ns=2353i,…,mean_ns=2410.5,git_revision="abc" 1764460800000000000
///
/// Every point is stamped with the run's start, so points of one run share a time and a later
/// run's points follow them; a start that is not a time leaves the stamp to the server. A
/// percentile the count does not support is not written. `value` and `mean_ns` are always floats,
/// the other statistics integers, so points of every run agree on each field's type.
enum InfluxLineProtocol {
    static func render(_ values: ExportedValues, notes: inout [String]) -> String {
        var text = ""
        var changedTags: [String: String] = [:]
        var changedFields: [String: String] = [:]
        let stamp = values.run.startNanoseconds.map { " \($0)" } ?? ""
        if values.run.startSeconds == nil {
            notes.append("left out the timestamps: the report's start '\(values.run.startedAt)' is not an ISO 8601 time, so the server stamps the points")
        } else if values.run.startNanoseconds == nil {
            notes.append("left out the timestamps: the report's start \(values.run.startedAt) is outside the times line protocol stamps (1677 to 2262), so the server stamps the points")
        }
        let revision = "git_revision=" + quotedStringField(values.run.gitRevision, changed: &changedFields)
        func tag(_ key: String, _ value: String) -> String {
            // An empty tag value is not allowed; a point without the tag is.
            value.isEmpty ? "" : ",\(key)=\(escapedTagValue(value, changed: &changedTags))"
        }
        // A rewritten name can meet another one; the server would keep only the later point.
        var series: Set<String> = []
        func isNew(_ key: String, _ what: String) -> Bool {
            guard series.insert(key).inserted else {
                notes.append("left out \(what): once rewritten, its series is another value's")
                return false
            }
            return true
        }
        let host = tag("host", values.run.host)
        for figure in values.figures {
            guard figure.value.isFinite else {
                notes.append("left out \(figure.name): its value is \(figure.value), which line protocol cannot write")
                continue
            }
            let tags = tag("scenario", figure.scenario) + tag("figure", figure.name) + tag("unit", figure.unit) + host
            guard isNew("segments_bench_figure" + tags, "\(figure.name) in \(figure.scenario)") else { continue }
            text += "segments_bench_figure\(tags) value=\(figure.value),\(revision)\(stamp)\n"
        }
        for latency in values.latencies {
            let tags = tag("scenario", latency.scenario) + tag("latency", latency.name) + host
            guard isNew("segments_bench_latency" + tags, "latency \(latency.name) in \(latency.scenario)") else { continue }
            var fields = ["count=\(latency.count)i"]
            for statistic in latency.statistics {
                let key = statistic.label.replacingOccurrences(of: ".", with: "_") + "_ns"
                switch statistic.nanoseconds {
                case .whole(let value) where value <= UInt64(Int64.max):
                    fields.append("\(key)=\(value)i")
                case .fraction(let value) where value.isFinite:
                    fields.append("\(key)=\(value)")
                default:
                    notes.append("left out \(latency.scenario).\(latency.name) \(statistic.label): \(statistic.nanoseconds.double) ns, which line protocol cannot write")
                }
            }
            fields.append(revision)
            text += "segments_bench_latency\(tags) \(fields.joined(separator: ","))\(stamp)\n"
        }
        for (original, stored) in changedTags.sorted(by: { $0.key < $1.key }) {
            notes.append("wrote the tag '\(original)' as '\(stored)': line protocol cannot carry a control character, or a backslash before a separator or at the end")
        }
        for (original, stored) in changedFields.sorted(by: { $0.key < $1.key }) {
            notes.append("wrote the field '\(original)' as '\(stored)': line protocol cannot carry a control character")
        }
        return text
    }

    /// A tag value with its commas, equals signs and spaces escaped. A control character (a line
    /// break ends the point) becomes an escaped space, and a backslash that a reader would take for
    /// an escape (before a separator, or last) becomes `/`; such values are recorded in `changed`,
    /// with the value the server stores.
    static func escapedTagValue(_ value: String, changed: inout [String: String]) -> String {
        let scalars = Array(value.unicodeScalars)
        var escaped = ""
        var stored = ""
        var altered = false
        for (index, scalar) in scalars.enumerated() {
            switch scalar {
            case ",", "=", " ":
                escaped += "\\"
                escaped.unicodeScalars.append(scalar)
                stored.unicodeScalars.append(scalar)
            case "\\":
                let next = index + 1 < scalars.count ? scalars[index + 1] : nil
                if let next, ![",", "=", " "].contains(next), !isControl(next) {
                    escaped += "\\"
                    stored += "\\"
                } else {
                    escaped += "/"
                    stored += "/"
                    altered = true
                }
            default:
                if isControl(scalar) {
                    escaped += "\\ "
                    stored += " "
                    altered = true
                } else {
                    escaped.unicodeScalars.append(scalar)
                    stored.unicodeScalars.append(scalar)
                }
            }
        }
        if altered { changed[value] = stored }
        return escaped
    }

    /// A string field's value: quoted, its quotes and backslashes escaped; a control character, which
    /// line protocol does not carry, becomes a space and the value is recorded in `changed`, with the
    /// value the server stores.
    static func quotedStringField(_ value: String, changed: inout [String: String]) -> String {
        var escaped = ""
        var stored = ""
        for scalar in value.unicodeScalars {
            if scalar == "\"" || scalar == "\\" { escaped += "\\" }
            let kept = isControl(scalar) ? " " : scalar
            escaped.unicodeScalars.append(kept)
            stored.unicodeScalars.append(kept)
        }
        if !stored.unicodeScalars.elementsEqual(value.unicodeScalars) { changed[value] = stored }
        return "\"" + escaped + "\""
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control || scalar == "\u{2028}" || scalar == "\u{2029}"
    }
}
