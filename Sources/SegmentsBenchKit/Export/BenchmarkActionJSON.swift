import Foundation

/// A report as github-action-benchmark's custom JSON (`customSmallerIsBetter` or
/// `customBiggerIsBetter`), the format package-benchmark writes as `jsonSmallerIsBetter`:
///
///     [{"name": "pull.cache-hit p50", "unit": "ns", "value": 2353, "extra": "1200 samples; …"}]
///
/// The action charts each name over commits and alerts when one moves the wrong way, so each file
/// holds one direction: every latency statistic (lower is better) and the figures better lower,
/// or the figures better higher. A figure that does not say which way is better is in neither.
enum BenchmarkActionJSON {
    private struct Entry: Encodable {
        var name: String
        var unit: String
        var value: Double
        var extra: String
    }

    static func render(_ values: ExportedValues, better: WallClockFigure.Direction, leftOut: inout [String]) throws -> String {
        let run = "git \(values.run.gitRevision) on \(values.run.host), started \(values.run.startedAt)"
        var entries: [Entry] = []
        func add(_ name: String, _ unit: String, _ value: Double, _ extra: String) {
            guard value.isFinite else {
                leftOut.append("\(name): its value is \(value), which JSON cannot write")
                return
            }
            entries.append(Entry(name: name, unit: unit, value: value, extra: extra))
        }
        if better == .lowerIsBetter {
            for latency in values.latencies {
                for statistic in latency.statistics {
                    add("\(latency.scenario).\(latency.name) \(statistic.label)", "ns", statistic.nanoseconds, "\(latency.count) samples; \(run)")
                }
            }
        }
        for figure in values.figures where figure.better == better {
            add(figure.name, figure.unit, figure.value, run)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(entries)
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
