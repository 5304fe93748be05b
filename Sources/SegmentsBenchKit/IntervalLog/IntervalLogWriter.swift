import Foundation
import Histogram

/// Renders HdrHistogram interval logs (`.hlog`, log format 1.3), the text that HdrHistogram's
/// `HistogramLogReader` (Java, Python, Go, Rust) and HistogramLogAnalyzer read:
///
/// ```text
/// #[Histogram log format version 1.3]
/// #[StartTime: 1700000000.000 (seconds since epoch), 2023-11-14T22:13:20Z]
/// #[BaseTime: 1700000000.000 (seconds since epoch)]
/// "StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"
/// Tag=host:ci-1;scenario:soak,0.000,1.000,0.084,HISTFAAAAC...
/// ```
///
/// Timestamps are seconds after `BaseTime` (the earliest interval of the log), maxima are in
/// milliseconds (HdrHistogram's default ratio for nanosecond values), and every line carries a
/// tag naming its host and scenario. A tag may not hold a comma (readers end it at the first),
/// whitespace or a line break, so those become `_`, and its parts are joined with `;`.
public struct IntervalLogWriter: Sendable {
    /// The tag's parts other than the host (for example `scenario`), in order.
    public var tags: [(key: String, value: String)]

    /// A writer tagging every line with `tags` after the host.
    public init(tags: [(key: String, value: String)]) {
        self.tags = tags
    }

    /// The log of `series`, whose `host` is `nil` for `defaultHost`: every interval of every host
    /// in time order (a host's empty intervals included), or `nil` when there is none.
    ///
    /// - Throws: ``IntervalLogError/zlib(_:)`` when zlib fails.
    public func render(_ series: [LatencyIntervals], defaultHost: String) throws -> String? {
        var lines: [(start: Double, order: Int, text: String)] = []
        guard let base = series.filter({ !$0.histograms.isEmpty }).map(\.startTime).min() else { return nil }
        for (order, intervals) in series.enumerated() {
            let tag = tagText(host: intervals.host ?? defaultHost)
            for (index, histogram) in intervals.histograms.enumerated() {
                let start = intervals.startTime + Double(index) * intervals.intervalSeconds
                let fields = [
                    Self.seconds(start - base), Self.seconds(intervals.seconds(ofInterval: index)),
                    Self.seconds(Double(histogram.totalCount == 0 ? 0 : histogram.max) / 1_000_000),
                    try HistogramEncoding.base64(histogram),
                ]
                lines.append((start, order, "Tag=\(tag)," + fields.joined(separator: ",")))
            }
        }
        lines.sort { ($0.start, $0.order) < ($1.start, $1.order) }
        let formatter = ISO8601DateFormatter()
        let header = [
            "#[Histogram log format version 1.3]",
            "#[StartTime: \(Self.seconds(base)) (seconds since epoch), \(formatter.string(from: Date(timeIntervalSince1970: base)))]",
            "#[BaseTime: \(Self.seconds(base)) (seconds since epoch)]",
            "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"",
        ]
        return (header + lines.map(\.text)).joined(separator: "\n") + "\n"
    }

    /// `host:<host>;<key>:<value>…` with characters readers would misread replaced by `_`.
    func tagText(host: String) -> String {
        ([("host", host)] + tags).map { Self.tagSafe($0.key) + ":" + Self.tagSafe($0.value) }.joined(separator: ";")
    }

    static func tagSafe(_ text: String) -> String {
        let cleaned = String(text.unicodeScalars.map { scalar -> Character in
            scalar == "," || scalar == ";" || scalar == ":" || CharacterSet.whitespacesAndNewlines.contains(scalar) ? "_" : Character(scalar)
        })
        return cleaned.isEmpty ? "_" : cleaned
    }

    /// Seconds with millisecond digits, never in exponent notation (readers parse `[0-9.]+`).
    static func seconds(_ value: Double) -> String {
        String(format: "%.3f", locale: Locale(identifier: "en_US_POSIX"), max(0, value.isFinite ? value : 0))
    }
}
