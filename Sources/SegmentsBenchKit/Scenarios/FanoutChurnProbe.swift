import Foundation
import RealtimeSegments
import RealtimeSegmentsTesting

extension FanoutProbe {
    /// The result of a fan-out run with registration churn alongside.
    public struct ChurnMeasurement: Sendable {
        /// `addCallback` call latency while deliveries run.
        public var add: LatencyRecorder
        /// `removeCallback` call latency while deliveries run.
        public var remove: LatencyRecorder
        /// Add/remove pairs per second the churn thread achieved (it aims at the requested rate).
        public var pairsPerSecond: Double
        /// Server-side change → last stable callback, per check, with the churn running.
        public var delivery: LatencyRecorder
        /// `true` if every check reached every stable callback exactly once.
        public var complete: Bool
    }

    /// `targets` stay registered while another thread adds and removes a callback of the same
    /// category `pairsPerSecond` times a second (0: no churn, the same run for comparison) (in bursts of ten, asleep between them, so the
    /// churn does not take a core by spinning); `checks` checks, each with changed data.
    ///
    /// Every registration is a reload trigger, so the engine also runs checks of unchanged data
    /// back to back meanwhile: churned callbacks may or may not see a change (a registration
    /// racing a delivery), but every stable callback must see each change exactly once.
    public static func churn(targets: FanoutTargets, checks: Int, pairsPerSecond: Double) throws -> ChurnMeasurement {
        let engine = try EngineUnderTest.make(transport: .memory, debounce: .zero, maxWait: .zero, deliveryMode: .ordered)
        defer { engine.shutdown() }
        let client = engine.client
        client.segmentation.addCallbacks(targets.registrations)
        client.start()
        // The start's own check settles first, as in ``FanoutProbe/engine(targets:checks:mode:floorRounds:)``.
        let settled = client.waitUntilIdle(timeout: .seconds(60))
        let cookie = engine.cookie
        let segmentsPerPayload = payload(variant: 0).count

        let stop = LockedBox(false)
        let churnResult = LockedBox<(add: LatencyRecorder, remove: LatencyRecorder, pairs: Int, seconds: Double)?>(nil)
        let churnDone = DispatchSemaphore(value: 0)
        let churnThread = Thread {
            guard pairsPerSecond > 0 else {
                churnResult.withLock { $0 = (LatencyRecorder(), LatencyRecorder(), 0, 1) }
                churnDone.signal()
                return
            }
            var add = LatencyRecorder()
            var remove = LatencyRecorder()
            let burst = 10
            let interval = UInt64(1e9 / pairsPerSecond * Double(burst))
            let start = monotonicNanoseconds()
            var scheduled = start
            var pairs = 0
            while !stop.withLock({ $0 }) {
                sleep(untilMonotonic: scheduled)
                for _ in 0..<burst {
                    let callback = SegmentCallbackData(category: .discovery, isIncludeFirstLoad: false) { blackHole($0) }
                    let beforeAdd = monotonicNanoseconds()
                    client.segmentation.addCallback(callbackData: callback)
                    let afterAdd = monotonicNanoseconds()
                    client.segmentation.removeCallback(callbackData: callback)
                    let afterRemove = monotonicNanoseconds()
                    add.record(afterAdd &- beforeAdd)
                    remove.record(afterRemove &- afterAdd)
                    pairs += 1
                }
                scheduled += interval
            }
            churnResult.withLock { $0 = (add, remove, pairs, Double(monotonicNanoseconds() - start) / 1e9) }
            churnDone.signal()
        }
        churnThread.start()

        var delivery = LatencyRecorder()
        var complete = settled
        var deliveredChecks = 0
        let beforeRun = targets.makeMark()
        let beforeCheck = targets.makeMark()
        targets.record(into: beforeRun)
        for check in 1...checks {
            // Armed before the data changes: a check the churn triggers may deliver it first.
            targets.arm()
            targets.record(into: beforeCheck)
            let start = monotonicNanoseconds()
            engine.backend.setSegments(payload(variant: check), category: .discovery, forCookie: cookie, projectToken: EngineUnderTest.project.token)
            // The check is asked for as the churn asks for one, by a registration: with and
            // without churn the change then takes the same way to the callbacks. (A tracked
            // event's check comes after its upload: the calm run timed the upload too, and read
            // 0.03–1.05× the churned one.)
            let trigger = SegmentCallbackData(category: .discovery, isIncludeFirstLoad: false) { blackHole($0) }
            client.segmentation.addCallback(callbackData: trigger)
            client.segmentation.removeCallback(callbackData: trigger)
            guard targets.waitForLastCallback(timeout: .seconds(60)),
                  targets.eachCount(grewBy: segmentsPerPayload, since: beforeCheck)
            else {
                // The verdict is in: the rest would wait out a minute each.
                complete = false
                break
            }
            delivery.record(targets.lastAt &- start)
            deliveredChecks += 1
        }
        stop.withLock { $0 = true }
        churnDone.wait()
        _ = client.waitUntilIdle(timeout: .seconds(60))
        // No late duplicate: exactly one delivery per change in all.
        if !targets.eachCount(grewBy: deliveredChecks * segmentsPerPayload, since: beforeRun) { complete = false }
        let churn = churnResult.withLock { $0 }!
        return ChurnMeasurement(
            add: churn.add, remove: churn.remove, pairsPerSecond: Double(churn.pairs) / max(churn.seconds, 1e-9),
            delivery: delivery, complete: complete)
    }
}
