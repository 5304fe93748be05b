/// A report in InfluxDB's line protocol (precision: nanoseconds), one point per line:
///
///     segments_bench_figure,scenario=pull,figure=pull.requestsPerMiss,unit=ratio,host=ci value=0.5,git_revision="abc" 1764460800000000000
///     segments_bench_latency,scenario=pull,latency=cache-hit,host=ci count=1200i,min_ns=310i,p50_ns=2353i,…,mean_ns=2410.5,git_revision="abc" 1764460800000000000
///
/// Every point is stamped with the run's start, so points of one run share a time and a later
/// run's points follow them. A percentile the count does not support is not written.
enum InfluxLineProtocol {
    static func render(_ values: ExportedValues, leftOut: inout [String]) -> String {
        var text = ""
        let stamp = values.run.startNanoseconds.map { " \($0)" } ?? ""
        let revision = "git_revision=" + stringField(values.run.gitRevision)
        let host = tag("host", values.run.host)
        for figure in values.figures {
            guard figure.value.isFinite else {
                leftOut.append("\(figure.name): its value is \(figure.value), which line protocol cannot write")
                continue
            }
            let tags = tag("scenario", figure.scenario) + tag("figure", figure.name) + tag("unit", figure.unit) + host
            text += "segments_bench_figure\(tags) value=\(figure.value),\(revision)\(stamp)\n"
        }
        for latency in values.latencies {
            let tags = tag("scenario", latency.scenario) + tag("latency", latency.name) + host
            var fields = ["count=\(latency.count)i"]
            for statistic in latency.statistics {
                guard statistic.nanoseconds.isFinite else {
                    leftOut.append("\(latency.scenario).\(latency.name) \(statistic.label): \(statistic.nanoseconds), which line protocol cannot write")
                    continue
                }
                let key = statistic.label.replacingOccurrences(of: ".", with: "_") + "_ns"
                fields.append(key + "=" + (statistic.isWhole ? "\(UInt64(statistic.nanoseconds))i" : "\(statistic.nanoseconds)"))
            }
            fields.append(revision)
            text += "segments_bench_latency\(tags) \(fields.joined(separator: ","))\(stamp)\n"
        }
        return text
    }

    /// `,key=value`, escaped; nothing for an empty value, which line protocol does not allow.
    private static func tag(_ key: String, _ value: String) -> String {
        value.isEmpty ? "" : ",\(key)=\(escapedTagValue(value))"
    }

    /// A tag value with its commas, equals signs and spaces escaped. Line breaks and other control
    /// characters, which end a line there, become spaces; a backslash becomes `/`, since one before
    /// a separator would escape it and a reader unescapes only those three.
    static func escapedTagValue(_ value: String) -> String {
        var escaped = ""
        for character in value {
            switch character {
            case ",", "=", " ": escaped += "\\\(character)"
            case "\\": escaped += "/"
            default: escaped += character.isControl ? "\\ " : String(character)
            }
        }
        return escaped
    }

    /// A string field's value: quoted, its quotes and backslashes escaped, control characters as spaces.
    static func stringField(_ value: String) -> String {
        var escaped = "\""
        for character in value {
            switch character {
            case "\"", "\\": escaped += "\\\(character)"
            default: escaped += character.isControl ? " " : String(character)
            }
        }
        return escaped + "\""
    }
}

extension Character {
    /// A control character (a line break, a tab, …), which the text formats cannot carry as is.
    var isControl: Bool { unicodeScalars.contains { $0.properties.generalCategory == .control } }
}
