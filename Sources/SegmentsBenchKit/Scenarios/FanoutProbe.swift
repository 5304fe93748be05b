import Atomics
import Foundation
@_spi(Benchmarks) import RealtimeSegments
import RealtimeSegmentsTesting
import SegmentsMockServer

/// Measures one change delivered to N callbacks, through the engine and through the floor (a plain
/// loop over `[closure]`), with the same payload: ten 24-hex segments.
public enum FanoutProbe {
    /// The result of an engine fan-out measurement.
    public struct EngineMeasurement: Sendable {
        /// Data received (fetch returned) → first callback, per check.
        public var first: LatencyRecorder
        /// Data received → last callback, per check.
        public var last: LatencyRecorder
        /// Process-wide allocations per check (upload, fetch, diff, delivery), if jemalloc is present.
        public var allocationsPerCheck: Double?
        /// The floor, measured between the checks: the same closures called from a plain loop
        /// (empty when the measurement ran without floor rounds).
        public var floor: LatencyRecorder
        /// `true` if every callback was notified exactly once per check (verified after each check
        /// with floor rounds, over the whole measurement without).
        public var complete: Bool
        /// With a delivery spin window: the delivery thread's spinning per measured check, and the
        /// share of deliveries that started on a still-spinning thread (both 0 without one).
        public var spinNanosecondsPerCheck: Double = 0
        public var handedOffShare: Double = 0
        /// With a ``CheckTimeline``: the first-callback latency of each measured check in its
        /// stages; else `nil`.
        public var stages: NotificationStages?
    }

    /// The default ``SegmentsConfiguration/deliverySpinWindow`` of the measurements with one
    /// (`fanout-sweep`'s second run at each N, `peers`' `engine-spin`): longer than the probe's time
    /// between one check's last callback and the next check's data. `--spin-window-ms` sets
    /// another (``BenchOptions/spinWindowMs``).
    public static let spinWindow = Duration.milliseconds(5)

    /// The spin window `options` ask for: ``BenchOptions/spinWindowMs``, else ``spinWindow``.
    static func spinWindow(for options: BenchOptions) -> Duration {
        options.spinWindowMs.map { Duration.milliseconds($0) } ?? spinWindow
    }

    /// `window` as reports name it: "5 ms", or "250 µs" below a whole millisecond.
    static func label(_ window: Duration) -> String {
        let microseconds = window.wholeNanoseconds / 1_000
        return microseconds % 1_000 == 0 ? "\(microseconds / 1_000) ms" : "\(microseconds) µs"
    }

    /// The payload of every notification.
    public static func payload(variant: Int) -> [Segment] {
        (0..<10).map { index in
            Segment(id: objectId(high: UInt64(truncatingIfNeeded: variant), low: UInt32(index)), segmentationId: objectId(high: 0, low: UInt32(0xABC + index)))
        }
    }

    /// The engine delivering to `targets.registrations`; `checks` checks, each with changed data.
    ///
    /// With `floorRounds`, one round of the floor runs on this thread after every check: engine and
    /// floor alternate one for one, so the noise of a shared machine hits both alike, and each
    /// finds the callbacks' counters where the other left them (on the delivery thread's core or
    /// on this one). A second, warm round per check made the floor faster than any delivery from
    /// another core could be: the ratio then followed where the scheduler put the delivery thread
    /// (0.86–1.88× at 10,000). Every check then also verifies that each callback ran exactly once.
    ///
    /// Without `floorRounds` (`peers`, whose floor is a mechanism of its own), nothing but the
    /// engine touches the callbacks' counters during the checks, as nothing but the sender touches
    /// them in every other peer: the floor rounds and the per-check count moved all N counter
    /// lines to this thread's core before each check, which the other peers never pay. The counts
    /// are verified once at the end, as the other peers verify theirs: each callback ran once per
    /// check.
    ///
    /// `spinWindow` is the client's ``SegmentsConfiguration/deliverySpinWindow``. With
    /// `stampingStages`, the engine stamps each check's stages in a ``CheckTimeline`` (four more
    /// clock reads per check, inside the measured span) and the measurement holds them
    /// (``EngineMeasurement/stages``). `fetchDelay` is how long the mock takes to answer a fetch,
    /// and `checkSpacing` how long this thread sleeps before each check (outside the measured span).
    public static func engine(
        targets: FanoutTargets, checks: Int, mode: DeliveryMode, floorRounds: Bool, spinWindow: Duration = .zero,
        stampingStages: Bool = false, fetchDelay: Duration = .zero, checkSpacing: Duration = .zero
    ) throws -> EngineMeasurement {
        let timeline = stampingStages ? CheckTimeline() : nil
        let faults = fetchDelay > .zero ? FaultPlan(profiles: [.fetchSegments: FaultProfile(latency: .fixed(fetchDelay))]) : .none
        let engine = try EngineUnderTest.make(
            transport: .memory, debounce: .zero, maxWait: .zero, faults: faults, deliveryMode: mode
        ) {
            $0.deliverySpinWindow = spinWindow
            $0.checkTimeline = timeline
        }
        defer { engine.shutdown() }
        engine.client.segmentation.addCallbacks(targets.registrations)
        engine.client.start()
        // The start's own check (trigger 2) settles first. Left running, it could fetch the first
        // measured check's data and deliver it before that check takes its counts (the producer
        // thread descheduled on a busy machine): the check's own fetch then found nothing changed,
        // nothing was delivered, and the check waited out its time limit and counted as lost.
        // A start that does not settle leaves that race open: the measurement is then not trusted.
        var complete = engine.client.waitUntilIdle(timeout: .seconds(60))
        let cookie = engine.cookie
        var first = LatencyRecorder()
        var last = LatencyRecorder()
        var floor = LatencyRecorder()
        var stages = timeline.map { _ in NotificationStages() }
        let floorPayload = payload(variant: -1)
        var allocationStart: AllocationProbe.Snapshot?
        var statisticsStart: SegmentsStatistics?
        let beforeCheck = targets.makeMark()
        // Every payload has the same number of segments; counted once, outside the loop's allocations.
        let segmentsPerPayload = payload(variant: 0).count
        // One warm-up check, then the measured ones.
        for check in 0...checks {
            if check == 1 {
                allocationStart = AllocationProbe.snapshot()
                statisticsStart = engine.client.statistics
            }
            if checkSpacing > .zero { Thread.sleep(forTimeInterval: Double(checkSpacing.wholeNanoseconds) / 1e9) }
            engine.backend.setSegments(payload(variant: check), category: .discovery, forCookie: cookie, projectToken: EngineUnderTest.project.token)
            targets.arm()
            timeline?.reset()
            // Without floor rounds the counts are recorded once, before the warm-up check.
            if floorRounds || check == 0 { targets.record(into: beforeCheck) }
            try engine.client.trackEvent(eventType: "fanout")
            // Wait for the last callback itself (not by polling the client, whose polling would
            // add allocations that grow with delivery time), then for the engine to settle.
            let delivered = targets.waitForLastCallback(timeout: .seconds(60))
            _ = engine.client.waitUntilIdle(timeout: .seconds(60))
            guard delivered, !floorRounds || targets.eachCount(grewBy: segmentsPerPayload, since: beforeCheck),
                  let received = engine.transport.lastFetchReturn
            else {
                // The verdict is in: the rest would wait out a minute each for an engine that
                // does not deliver.
                complete = false
                break
            }
            if check > 0 {
                first.record(targets.firstAt &- received)
                last.record(targets.lastAt &- received)
                if let timeline { stages?.record(received: received, timeline: timeline, firstCallback: targets.firstAt) }
            }
            // One floor round per check (see above), recorded for the measured checks only, so that
            // a ratio's two p50s come from the same rounds.
            if floorRounds {
                let round = floorRound(targets, payload: floorPayload)
                if check > 0 { floor.record(round) }
            }
        }
        var allocations: Double?
        if complete, let allocationStart, let end = AllocationProbe.snapshot() {
            allocations = Double(end.mallocCalls - allocationStart.mallocCalls) / Double(checks)
        }
        if !floorRounds, !targets.eachCount(grewBy: segmentsPerPayload * (checks + 1), since: beforeCheck) {
            complete = false
        }
        var measurement = EngineMeasurement(first: first, last: last, allocationsPerCheck: allocations, floor: floor, complete: complete)
        measurement.stages = stages
        if let statisticsStart {
            // The last check's block may still spin: its window is not part of any measured check
            // yet, so the figure can only understate by at most one window over all the checks.
            let end = engine.client.statistics
            measurement.spinNanosecondsPerCheck =
                Double(end.deliverySpinNanoseconds - statisticsStart.deliverySpinNanoseconds) / Double(max(checks, 1))
            measurement.handedOffShare =
                Double(end.deliveriesHandedOff - statisticsStart.deliveriesHandedOff) / Double(max(checks, 1))
        }
        return measurement
    }

    /// One round of the floor: the callbacks of `targets` called from a plain loop; its duration.
    static func floorRound(_ targets: FanoutTargets, payload: [Segment]) -> UInt64 {
        targets.disarm()
        // The loop as an app would write it. The optimizer still retains and releases each
        // closure around its call (so it does for a loop over indices or over an unsafe buffer),
        // and that pair is part of what the floor costs; the engine's delivery loop avoids it.
        let closures = targets.closures
        let start = monotonicNanoseconds()
        for closure in closures { closure.call(payload) }
        return monotonicNanoseconds() - start
    }

    /// The floor alone: `rounds` rounds over `callbacks` fresh closures; time per round.
    public static func closureLoop(callbacks: Int, rounds: Int) -> LatencyRecorder {
        let targets = FanoutTargets(count: callbacks)
        var recorder = LatencyRecorder()
        for round in 0...rounds {
            let elapsed = floorRound(targets, payload: payload(variant: round))
            if round > 0 { recorder.record(elapsed) }
        }
        return recorder
    }
}
