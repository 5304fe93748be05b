import Foundation

/// A ``LatencyRecorder`` that also keeps one histogram per fixed interval of time, for interval
/// logs and time series.
///
/// Each value is counted in the interval of the time it is recorded at (`at`, monotonic ns).
/// Moving to the next interval takes a histogram from spares allocated up front for the expected
/// duration, so that recording allocates nothing while the phase runs as planned; a phase that
/// overruns its plan allocates one histogram per extra interval. Not thread-safe: one per thread,
/// then ``finish(startTime:)`` and ``LatencyRecorder/merge(_:)``, as with ``LatencyRecorder``.
public struct IntervalLatencyRecorder: Sendable {
    /// The monotonic time at which interval 0 begins.
    public let origin: UInt64
    /// The length of each interval, in ns.
    public let intervalNanoseconds: UInt64
    private var current = LatencyRecorder()
    private var currentIndex = 0
    private var currentEnd: UInt64
    private var completed: [(index: Int, recorder: LatencyRecorder)] = []
    private var spares: [LatencyRecorder] = []

    /// The most spare histograms allocated up front (about 220 KB each).
    public static let maximumSpares = 16

    /// The most intervals a planned phase is cut into: each interval holds a whole histogram until
    /// the report is written, so a long phase gets longer intervals instead of more of them.
    public static let maximumIntervals = 300

    /// The interval length for a phase planned to last `seconds`: 1 s, or for a phase longer than
    /// ``maximumIntervals`` seconds the whole seconds that cut it into at most that many intervals.
    public static func intervalNanoseconds(forPhaseOf seconds: Double) -> UInt64 {
        let perInterval = (max(seconds, 0) / Double(maximumIntervals)).rounded(.up)
        return UInt64(max(perInterval, 1)) * 1_000_000_000
    }

    /// How many intervals of `intervalNanoseconds` a phase of `seconds` spans, plus one for the
    /// drain after it.
    public static func expectedIntervals(forPhaseOf seconds: Double, intervalNanoseconds: UInt64) -> Int {
        Int((max(seconds, 0) * 1e9 / Double(intervalNanoseconds)).rounded(.up)) + 1
    }

    /// A recorder whose intervals start at `origin` and last `intervalNanoseconds` (at least 1 ms),
    /// with spares for `expectedIntervals` intervals (at most ``maximumSpares``).
    public init(origin: UInt64, intervalNanoseconds: UInt64 = 1_000_000_000, expectedIntervals: Int) {
        self.origin = origin
        self.intervalNanoseconds = max(intervalNanoseconds, 1_000_000)
        currentEnd = origin &+ self.intervalNanoseconds
        let planned = min(max(expectedIntervals, 0), Self.maximumSpares)
        completed.reserveCapacity(max(expectedIntervals, 0) + 2)
        spares.reserveCapacity(planned)
        for _ in 0..<planned { spares.append(LatencyRecorder()) }
    }

    /// Records `nanoseconds` in the interval holding `now` (monotonic ns; a time before
    /// ``origin`` counts in interval 0, and time never moves an interval backwards).
    @inline(__always)
    public mutating func record(_ nanoseconds: UInt64, at now: UInt64) {
        if now >= currentEnd { advance(to: now) }
        current.record(nanoseconds)
    }

    @inline(never)
    private mutating func advance(to now: UInt64) {
        let index = Int((now - origin) / intervalNanoseconds)
        if current.count > 0 {
            let next = spares.popLast() ?? LatencyRecorder()
            completed.append((currentIndex, current))
            current = next
        }
        currentIndex = index
        currentEnd = origin &+ UInt64(index + 1) &* intervalNanoseconds
    }

    /// The values recorded so far, with their intervals; interval 0 began at `startTime` (seconds
    /// since the Unix epoch, see ``epochSeconds(ofMonotonic:)``).
    public func finish(startTime: Double) -> LatencyRecorder {
        var slots = completed
        if current.count > 0 { slots.append((currentIndex, current)) }
        let count = (slots.last?.index ?? -1) + 1
        var histograms = Array(repeating: LatencyRecorder().histogram, count: count)
        var total = LatencyRecorder()
        for slot in slots {
            histograms[slot.index] = slot.recorder.histogram
            total.merge(slot.recorder)
        }
        // Finished now, so the last interval was open from its start until now (or whole, once
        // its end has passed: records after the load, say).
        let lastStart = origin &+ UInt64(max(count - 1, 0)) &* intervalNanoseconds
        let open = monotonicNanoseconds() &- lastStart
        let intervals = LatencyIntervals(
            startTime: startTime, intervalSeconds: Double(intervalNanoseconds) / 1e9, histograms: histograms,
            lastIntervalSeconds: count > 0 && open < intervalNanoseconds ? Double(open) / 1e9 : nil)
        return LatencyRecorder(histogram: total.histogram, intervals: intervals)
    }

    /// The wall-clock time (seconds since the Unix epoch) of the monotonic time `monotonic`.
    public static func epochSeconds(ofMonotonic monotonic: UInt64) -> Double {
        let now = monotonicNanoseconds()
        let wall = Date().timeIntervalSince1970
        return wall - (Double(now) - Double(monotonic)) / 1e9
    }
}
