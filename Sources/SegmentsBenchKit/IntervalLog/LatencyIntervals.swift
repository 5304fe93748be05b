import Foundation
import Histogram

/// One latency's histograms per fixed interval of time, as one host recorded them: what an
/// HdrHistogram interval log (`.hlog`) holds, and what the time series of a report are drawn from.
///
/// Interval `i` covers `[startTime + i × intervalSeconds, startTime + (i + 1) × intervalSeconds)`;
/// an interval with nothing recorded has an empty histogram, so that gaps show as gaps. In JSON
/// each histogram is its compressed V2 encoding in base64 (``HistogramEncoding``), a few hundred
/// bytes a second, and the histograms add up exactly to the latency's whole histogram.
public struct LatencyIntervals: Codable, Sendable {
    /// The host that recorded them; `nil` for the machine of the report that holds them.
    public var host: String?
    /// When interval 0 began, in seconds since the Unix epoch.
    public var startTime: Double
    /// The length of every interval, in seconds.
    public var intervalSeconds: Double
    /// One histogram per interval, in time order.
    public var histograms: [Histogram<UInt64>]
    /// How long the last interval was open, in seconds, when the recording ended partway through
    /// it; `nil` for a whole interval. A rate over that interval divides by this.
    public var lastIntervalSeconds: Double?

    /// Creates a series of intervals.
    public init(
        host: String? = nil, startTime: Double, intervalSeconds: Double, histograms: [Histogram<UInt64>],
        lastIntervalSeconds: Double? = nil
    ) {
        self.host = host
        self.startTime = startTime
        self.intervalSeconds = intervalSeconds
        self.histograms = histograms
        self.lastIntervalSeconds = lastIntervalSeconds
    }

    /// The length of interval `index` in seconds: ``lastIntervalSeconds`` for the last one when
    /// set, else ``intervalSeconds``.
    public func seconds(ofInterval index: Int) -> Double {
        guard index == histograms.count - 1, let last = lastIntervalSeconds, last > 0 else { return intervalSeconds }
        return min(last, intervalSeconds)
    }

    /// Every interval added together: the whole run's histogram.
    public var total: Histogram<UInt64> {
        var total = LatencyRecorder().histogram
        for histogram in histograms { total.add(histogram) }
        return total
    }

    /// Adds `other`'s counts interval by interval when both start at the same time with the same
    /// length (the producers of one phase); returns `false` and changes nothing otherwise.
    @discardableResult
    public mutating func add(_ other: LatencyIntervals) -> Bool {
        guard other.startTime == startTime, other.intervalSeconds == intervalSeconds, other.host == host else { return false }
        // The combined last interval is open as long as the longer of the two kept it open.
        if other.histograms.count > histograms.count {
            lastIntervalSeconds = other.lastIntervalSeconds
        } else if other.histograms.count == histograms.count {
            lastIntervalSeconds = lastIntervalSeconds.flatMap { mine in other.lastIntervalSeconds.map { max(mine, $0) } }
        }
        for (index, histogram) in other.histograms.enumerated() {
            if index < histograms.count {
                histograms[index].add(histogram)
            } else {
                histograms.append(histogram)
            }
        }
        return true
    }

    private enum CodingKeys: String, CodingKey {
        case host, startTime, intervalSeconds, histograms, lastIntervalSeconds
    }

    /// Decodes intervals; each histogram must be a V2 histogram with ``LatencyRecorder``'s layout.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        host = try container.decodeIfPresent(String.self, forKey: .host)
        startTime = try container.decode(Double.self, forKey: .startTime)
        intervalSeconds = try container.decode(Double.self, forKey: .intervalSeconds)
        guard startTime.isFinite, intervalSeconds.isFinite, intervalSeconds > 0 else {
            throw DecodingError.dataCorruptedError(
                forKey: .intervalSeconds, in: container, debugDescription: "Segments: intervals need a finite start and a positive length")
        }
        var histograms: [Histogram<UInt64>] = []
        for text in try container.decode([String].self, forKey: .histograms) {
            do {
                histograms.append(try HistogramEncoding.decode(base64: text[...]))
            } catch {
                throw DecodingError.dataCorruptedError(forKey: .histograms, in: container, debugDescription: "\(error)")
            }
        }
        self.histograms = histograms
        lastIntervalSeconds = try container.decodeIfPresent(Double.self, forKey: .lastIntervalSeconds)
    }

    /// Encodes the intervals, each histogram compressed.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(host, forKey: .host)
        try container.encode(startTime, forKey: .startTime)
        try container.encode(intervalSeconds, forKey: .intervalSeconds)
        try container.encode(try histograms.map(HistogramEncoding.base64), forKey: .histograms)
        try container.encodeIfPresent(lastIntervalSeconds, forKey: .lastIntervalSeconds)
    }
}
