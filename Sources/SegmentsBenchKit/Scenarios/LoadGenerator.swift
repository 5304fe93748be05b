import Foundation

/// Runs `producers` threads that call `operation` flat out or at a target rate, each recording the
/// call latency in its own recorder (merged at the end), per second as well as in total (the
/// outcome's ``LatencyRecorder/intervals``, for the report's interval logs and time series).
///
/// With a rate, each producer follows a fixed schedule and latency is measured from the scheduled
/// start, so a stall counts for every operation it delayed (coordinated-omission correction).
public enum LoadGenerator {
    public struct Outcome: Sendable {
        public var latency: LatencyRecorder
        public var operations: Int
        public var corrected: Bool
        /// Seconds from the load's start until its last producer finished: `seconds`, or more when
        /// a producer ran behind its schedule (a rate it could not keep) or its last call was slow.
        /// Divide ``operations`` by this for the rate achieved.
        public var elapsedSeconds: Double
    }

    /// Runs the load for `seconds`. `operation(producer, sequence)` must not throw for the run to count.
    ///
    /// With a rate, `fromScheduledStart` (the default) measures from each operation's slot in the
    /// schedule (coordinated-omission corrected); `false` measures the call alone.
    ///
    /// `burst` > 1 (with a rate, measuring the call alone) schedules operations in groups of that
    /// many, back to back, and sleeps between groups instead of spinning to each slot: the same
    /// rate, but a producer that waits leaves its core to others, as an app's threads do. Spinning
    /// producers at 10 µs intervals keep every core of a small machine busy, and the engine thread
    /// then runs by preempting them, inside a call or not.
    public static func run(
        producers: Int, seconds: Double, ratePerProducer: Double?, fromScheduledStart: Bool = true, burst: Int = 1,
        operation: @escaping @Sendable (_ producer: Int, _ sequence: Int) -> Void
    ) -> Outcome {
        run(producers: producers, seconds: seconds, ratePerProducer: ratePerProducer, fromScheduledStart: fromScheduledStart,
            burst: burst, clock: monotonicNanoseconds, operation: operation)
    }

    /// ``run(producers:seconds:ratePerProducer:fromScheduledStart:burst:operation:)`` reading
    /// `clock` for every timestamp but the bursts' sleeps (tests pass one whose time they drive).
    static func run(
        producers: Int, seconds: Double, ratePerProducer: Double?, fromScheduledStart: Bool, burst: Int,
        clock: @escaping @Sendable () -> UInt64, operation: @escaping @Sendable (_ producer: Int, _ sequence: Int) -> Void
    ) -> Outcome {
        precondition(burst == 1 || (ratePerProducer != nil && !fromScheduledStart), "bursts are for call-alone latency at a rate")
        let results = LockedBox<[(LatencyRecorder, Int, UInt64)]>([])
        let start = clock() + 5_000_000
        let end = start + UInt64(seconds * 1e9)
        let startTime = IntervalLatencyRecorder.epochSeconds(ofMonotonic: start)
        let intervalNanoseconds = IntervalLatencyRecorder.intervalNanoseconds(forPhaseOf: seconds)
        let expectedIntervals = IntervalLatencyRecorder.expectedIntervals(forPhaseOf: seconds, intervalNanoseconds: intervalNanoseconds)
        let group = DispatchGroup()
        for producer in 0..<producers {
            let thread = Thread {
                var recorder = IntervalLatencyRecorder(
                    origin: start, intervalNanoseconds: intervalNanoseconds, expectedIntervals: expectedIntervals)
                var sequence = 0
                // A call that started before `end` is filed in the phase's last interval however
                // late it returns: an interval opened past the end would read as a rate collapse.
                let lastFilingTime = end &- 1
                while clock() < start {}
                if let rate = ratePerProducer, rate > 0, burst > 1 {
                    let interval = UInt64(1e9 / rate * Double(burst))
                    var scheduled = start
                    while scheduled < end {
                        sleep(untilMonotonic: scheduled)
                        for _ in 0..<burst {
                            // The clock is read again after recording, so a sample is the call alone.
                            let now = clock()
                            operation(producer, sequence)
                            let after = clock()
                            recorder.record(after &- now, at: min(after, lastFilingTime))
                            sequence += 1
                        }
                        scheduled += interval
                    }
                } else if let rate = ratePerProducer, rate > 0 {
                    let interval = UInt64(1e9 / rate)
                    var scheduled = start
                    while scheduled < end {
                        var now = clock()
                        while now < scheduled {
                            // Sleep while far from the slot, spin the last 100 µs for precision.
                            if scheduled - now > 100_000 { usleep(50) }
                            now = clock()
                        }
                        operation(producer, sequence)
                        let after = clock()
                        recorder.record(after &- (fromScheduledStart ? scheduled : now), at: min(after, lastFilingTime))
                        sequence += 1
                        scheduled += interval
                    }
                } else {
                    var now = clock()
                    while now < end {
                        operation(producer, sequence)
                        let after = clock()
                        recorder.record(after &- now, at: min(after, lastFilingTime))
                        sequence += 1
                        // Read after recording: the next sample is the call alone, not the call plus record().
                        now = clock()
                    }
                }
                let finishedAt = clock()
                let finished = recorder.finish(startTime: startTime)
                results.withLock { $0.append((finished, sequence, finishedAt)) }
                group.leave()
            }
            group.enter()
            thread.start()
        }
        group.wait()
        var merged = LatencyRecorder()
        var operations = 0
        var lastFinish = end
        for (recorder, count, finishedAt) in results.withLock({ $0 }) {
            merged.merge(recorder)
            operations += count
            lastFinish = max(lastFinish, finishedAt)
        }
        return Outcome(
            latency: merged, operations: operations, corrected: ratePerProducer != nil && fromScheduledStart,
            elapsedSeconds: Double(lastFinish - start) / 1e9)
    }
}
