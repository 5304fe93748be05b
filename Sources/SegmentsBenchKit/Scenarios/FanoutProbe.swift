import Atomics
import Foundation
import RealtimeSegments
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
        /// Checks measured.
        public var checks: Int
        /// `true` if every callback was notified exactly once per check.
        public var complete: Bool
    }

    /// The payload of every notification.
    public static func payload(variant: Int) -> [Segment] {
        (0..<10).map { index in
            Segment(id: String(format: "%016x%08x", variant, index), segmentationId: String(format: "%024x", 0xABC + index))
        }
    }

    /// N callbacks on one category; `checks` checks, each with changed data.
    public static func engine(callbacks: Int, checks: Int, mode: DeliveryMode) throws -> EngineMeasurement {
        let engine = try EngineUnderTest.make(
            transport: .memory, debounce: .zero, maxWait: .zero, deliveryMode: mode)
        defer { engine.shutdown() }
        let calls = ManagedAtomic<Int>(0)
        let firstAt = ManagedAtomic<UInt64>(0)
        let lastAt = ManagedAtomic<UInt64>(0)
        // Per-callback work is one relaxed increment: the cost of "touching your own state".
        engine.client.segmentation.addCallbacks((0..<callbacks).map { index in
            let isFirst = index == 0
            return SegmentCallbackData(category: .discovery, isIncludeFirstLoad: false) { segments in
                if isFirst { firstAt.store(monotonicNanoseconds(), ordering: .relaxed) }
                if calls.wrappingIncrementThenLoad(ordering: .relaxed) == callbacks {
                    lastAt.store(monotonicNanoseconds(), ordering: .relaxed)
                }
                blackHole(segments.count)
            }
        })
        engine.client.start()
        let cookie = engine.cookie
        var first = LatencyRecorder()
        var last = LatencyRecorder()
        var complete = true
        var allocationStart: AllocationProbe.Snapshot?
        // One warm-up check, then the measured ones.
        for check in 0...checks {
            if check == 1 { allocationStart = AllocationProbe.snapshot() }
            engine.backend.setSegments(payload(variant: check), category: .discovery, forCookie: cookie, projectToken: EngineUnderTest.project.token)
            calls.store(0, ordering: .relaxed)
            try engine.client.trackEvent(eventType: "fanout")
            _ = engine.client.waitUntilIdle(timeout: .seconds(60))
            guard calls.load(ordering: .relaxed) == callbacks, let received = engine.transport.lastFetchReturn else {
                complete = false
                continue
            }
            if check > 0 {
                first.record(firstAt.load(ordering: .relaxed) &- received)
                last.record(lastAt.load(ordering: .relaxed) &- received)
            }
        }
        var allocations: Double?
        if let allocationStart, let end = AllocationProbe.snapshot() {
            allocations = Double(end.mallocCalls - allocationStart.mallocCalls) / Double(checks)
        }
        return EngineMeasurement(first: first, last: last, allocationsPerCheck: allocations, checks: checks, complete: complete)
    }

    /// The floor: one loop over N closures with the payload; time per round.
    public static func closureLoop(callbacks: Int, rounds: Int) -> LatencyRecorder {
        let counters = UnsafeMutablePointer<Int>.allocate(capacity: callbacks * 8)
        counters.initialize(repeating: 0, count: callbacks * 8)
        defer { counters.deallocate() }
        let closures: [([Segment]) -> Void] = (0..<callbacks).map { index in
            { segments in counters[index * 8] &+= segments.count }
        }
        var recorder = LatencyRecorder()
        for round in 0...rounds {
            let payload = payload(variant: round)
            let start = monotonicNanoseconds()
            for closure in closures { closure(payload) }
            let elapsed = monotonicNanoseconds() - start
            if round > 0 { recorder.record(elapsed) }
        }
        blackHole(counters[0])
        return recorder
    }
}
