import Foundation

/// A report as github-action-benchmark's custom JSON (`customSmallerIsBetter` or
/// `customBiggerIsBetter`), the format package-benchmark writes as `jsonSmallerIsBetter`:
///
///     [{"extra": "1200 samples; …", "name": "pull.cache-hit p50", "unit": "ns", "value": 2353}]
///
/// The action charts each name over commits and alerts when one moves the wrong way, so each file
/// holds one direction: every latency statistic (lower is better) and the figures better lower,
/// or the figures better higher. A figure that does not say which way is better is in neither,
/// and the file's notes count them.
enum BenchmarkActionJSON {
    private struct Entry: Encodable {
        var name: String
        var unit: String
        var value: Double
        var extra: String
    }

    /// - Throws: ``ExportError/nothingToWrite(_:)`` when no entry is left: the action refuses an
    ///   empty list ("No benchmark result was found").
    static func render(_ values: ExportedValues, direction: WallClockFigure.Direction, notes: inout [String]) throws -> String {
        let run = "git \(values.run.gitRevision) on \(values.run.host), started \(values.run.startedAt)"
        var entries: [Entry] = []
        var names: Set<[UInt8]> = []
        func add(_ name: String, _ unit: String, _ value: Double, _ extra: String) {
            guard value.isFinite else {
                notes.append("left out \(name): its value is \(value), which JSON cannot write")
                return
            }
            // The action keys a chart by name alone (compared as code units, not as Swift compares
            // strings); a figure named as another scenario's would share it.
            guard names.insert(Array(name.utf8)).inserted else {
                notes.append("left out a second entry named \(name)")
                return
            }
            entries.append(Entry(name: name, unit: unit, value: value, extra: extra))
        }
        if direction == .lowerIsBetter {
            for latency in values.latencies {
                for statistic in latency.statistics {
                    add("\(latency.scenario).\(latency.name) \(statistic.label)", "ns", statistic.nanoseconds.double, "\(latency.count) samples; \(run)")
                }
            }
        }
        for figure in values.figures where figure.direction == direction {
            add(figure.name, figure.unit, figure.value, run)
        }
        let undirected = values.figures.filter { $0.direction == nil }.map(\.name)
        if let first = undirected.first {
            let more = undirected.count > 1 ? " and \(undirected.count - 1) more" : ""
            notes.append("left out \(undirected.count) figure\(undirected.count == 1 ? "" : "s") that say neither lower nor higher is better (\(first)\(more)): the csv, influx and prometheus formats hold them")
        }
        guard !entries.isEmpty else {
            let which = direction == .lowerIsBetter ? "lower" : "higher"
            throw ExportError.nothingToWrite("the report holds no value better \(which)")
        }
        // Not the report's encoder: that one spells non-finite numbers as strings, which the action
        // would not read as values; none is left here.
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(entries), as: UTF8.self) + "\n"
    }
}
