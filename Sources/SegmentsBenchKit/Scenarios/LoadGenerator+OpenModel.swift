import Foundation
import SegmentsMockServer

extension LoadGenerator {
    /// What ``runOpen(generators:streams:seed:gracefulStop:operation:)`` measured, per stream.
    public struct OpenOutcome: Sendable {
        /// Per stream: intended start → the operation's return (coordinated-omission corrected),
        /// per second as well as in total.
        public var latency: [LatencyRecorder]
        /// Per stream: operations issued.
        public var operations: [Int]
        /// Per stream: arrivals never issued because the generators were still behind their
        /// schedule ``gracefulStopSeconds`` after its end (k6's dropped iterations): the arrival due
        /// then and those expected after it.
        public var dropped: [Int]
        /// The largest delay between an arrival's intended start and its operation's start (ns):
        /// how far the generators fell behind their schedule.
        public var maximumStartLag: UInt64
        /// Seconds from the schedule's start until the last generator finished: the schedule's
        /// length, or more when the generators fell behind it. Divide ``operations`` by this for
        /// the rate achieved.
        public var elapsedSeconds: Double
    }

    /// How long past the schedule's end generators that fell behind keep issuing late arrivals.
    public static let gracefulStopSeconds = 30.0

    /// Open-model load: every stream is a Poisson arrival process whose rate follows its
    /// ``LoadStages`` (non-homogeneous, by thinning), split evenly over `generators` threads.
    /// Arrivals come at their scheduled times whatever the system's speed: a generator that falls
    /// behind issues the late arrivals at once, and each is timed from its intended start.
    ///
    /// `operation(generator, stream, intendedStart, &random)` runs on generator thread `generator`
    /// (0..<generators) with the arrival's intended start (monotonic ns) and that thread's seeded
    /// random source; arrivals of one generator never overlap. Blocks until every stream's
    /// schedule has ended (the longest stream's ``LoadStages/totalSeconds``), and at most
    /// `gracefulStop` seconds longer: a generator still behind then stops, and the arrivals it did
    /// not issue are counted as ``OpenOutcome/dropped``.
    public static func runOpen(
        generators: Int, streams: [LoadStages], seed: UInt64, gracefulStop: Double = gracefulStopSeconds,
        operation: @escaping @Sendable (_ generator: Int, _ stream: Int, _ intendedStart: UInt64, _ random: inout SplitMix64) -> Void
    ) -> OpenOutcome {
        let generators = max(1, generators)
        let results = LockedBox<[OpenOutcome]>([])
        let start = monotonicNanoseconds() + 5_000_000
        let seconds = streams.map(\.totalSeconds).max() ?? 0
        let peak = streams.reduce(0) { $0 + $1.peakRate } / Double(generators)
        let startTime = IntervalLatencyRecorder.epochSeconds(ofMonotonic: start)
        let lastFilingTime = start + UInt64(seconds * 1e9) &- 1
        let stopIssuing = start + UInt64((seconds + max(0, gracefulStop)) * 1e9)
        let intervalNanoseconds = IntervalLatencyRecorder.intervalNanoseconds(forPhaseOf: seconds)
        let expectedIntervals = IntervalLatencyRecorder.expectedIntervals(forPhaseOf: seconds, intervalNanoseconds: intervalNanoseconds)
        let group = DispatchGroup()
        for generator in 0..<generators {
            let thread = Thread {
                var random = openModelRandom(seed: seed, generator: generator)
                var outcome = OpenOutcome(
                    latency: [], operations: Array(repeating: 0, count: streams.count),
                    dropped: Array(repeating: 0, count: streams.count), maximumStartLag: 0, elapsedSeconds: 0)
                var latency = (0..<streams.count).map { _ in
                    IntervalLatencyRecorder(
                        origin: start, intervalNanoseconds: intervalNanoseconds, expectedIntervals: expectedIntervals)
                }
                var elapsed = 0.0
                while peak > 0 {
                    // Exponential gap at the peak rate; each candidate is kept for a stream with
                    // probability rate(t) / peak (thinning).
                    let uniform = Double(random.next() >> 11) / Double(1 << 53)
                    elapsed += -log1p(-uniform) / peak
                    guard elapsed < seconds else { break }
                    var pick = Double(random.next() >> 11) / Double(1 << 53) * peak
                    var chosen: Int?
                    for (index, stream) in streams.enumerated() {
                        let rate = stream.rate(at: elapsed) / Double(generators)
                        if pick < rate {
                            chosen = index
                            break
                        }
                        pick -= rate
                    }
                    guard let stream = chosen else { continue }
                    let intended = start + UInt64(elapsed * 1e9)
                    let begun = sleep(untilMonotonic: intended)
                    if begun > stopIssuing {
                        // This arrival and this thread's share of every one due after it.
                        for (index, stream) in streams.enumerated() {
                            let rest = stream.expectedArrivals(after: elapsed) / Double(generators)
                            outcome.dropped[index] += Int(rest.rounded()) + (index == chosen ? 1 : 0)
                        }
                        break
                    }
                    outcome.maximumStartLag = max(outcome.maximumStartLag, begun &- intended)
                    operation(generator, stream, intended, &random)
                    let done = monotonicNanoseconds()
                    // An arrival returning after the schedule's end is filed in its last interval:
                    // an interval opened past the end would read as a rate collapse.
                    latency[stream].record(done &- intended, at: min(done, lastFilingTime))
                    outcome.operations[stream] += 1
                }
                if peak <= 0 { sleep(untilMonotonic: start + UInt64(seconds * 1e9)) }
                outcome.elapsedSeconds = Double(monotonicNanoseconds() &- start) / 1e9
                outcome.latency = latency.map { $0.finish(startTime: startTime) }
                results.withLock { $0.append(outcome) }
                group.leave()
            }
            group.enter()
            thread.start()
        }
        group.wait()
        var merged = OpenOutcome(
            latency: Array(repeating: LatencyRecorder(), count: streams.count),
            operations: Array(repeating: 0, count: streams.count), dropped: Array(repeating: 0, count: streams.count),
            maximumStartLag: 0, elapsedSeconds: seconds)
        for outcome in results.withLock({ $0 }) {
            for index in streams.indices {
                merged.latency[index].merge(outcome.latency[index])
                merged.operations[index] += outcome.operations[index]
                merged.dropped[index] += outcome.dropped[index]
            }
            merged.maximumStartLag = max(merged.maximumStartLag, outcome.maximumStartLag)
            merged.elapsedSeconds = max(merged.elapsedSeconds, outcome.elapsedSeconds)
        }
        return merged
    }

    /// Generator thread `generator`'s random source for a run seeded `seed`.
    ///
    /// Each thread's seed is a draw of a generator seeded `seed`, so the threads' sequences are
    /// unrelated. (A seed of `seed + generator × γ`, γ being SplitMix64's own step, would start
    /// each thread one step into the last one's sequence: two threads that drew at the same
    /// moment once would then make the same choices for the rest of the run.)
    static func openModelRandom(seed: UInt64, generator: Int) -> SplitMix64 {
        var seeds = SplitMix64(seed: seed)
        for _ in 0..<generator { _ = seeds.next() }
        return SplitMix64(seed: seeds.next())
    }
}
