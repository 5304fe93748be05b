import Foundation
import RealtimeSegments

/// The concurrent setter load of the `reporting` scenario and its check for lost updates.
///
/// Thread `t` alternates `setCustomSegments(["t-i"])` and `setDefaultSegments([key(t): "i"])` over
/// a visitor set shared by every thread, remembering what it wrote, so that afterwards every lost
/// update shows: a custom segment missing or out of order, or a default key not holding the last
/// value one of its writers set.
struct ReportingLoad: Sendable {
    /// What one thread did.
    struct ThreadOutcome: Sendable {
        var latency = LatencyRecorder()
        var calls = 0
        /// Custom segments appended per visitor index, in call order.
        var appended: [Int: [String]] = [:]
        /// Last default value written per visitor index (to this thread's key).
        var lastDefault: [Int: String] = [:]
    }

    let visitorIds: [String]
    let threads: Int

    static func key(forThread thread: Int) -> ReportingSegmentKey {
        ReportingSegmentKey.allCases[thread % ReportingSegmentKey.allCases.count]
    }

    /// Runs `threads` threads until `seconds` pass or each made `maxCallsPerThread` calls.
    func run(_ client: SegmentsClient, seconds: Double, maxCallsPerThread: Int) throws -> [ThreadOutcome] {
        let visitors = try visitorIds.map { try client.reportingVisitor(visitorId: $0) }
        let outcomes = LockedBox([ThreadOutcome](repeating: ThreadOutcome(), count: threads))
        let group = DispatchGroup()
        let end = monotonicNanoseconds() + UInt64(seconds * 1e9)
        for thread in 0..<threads {
            group.enter()
            let worker = Thread {
                let outcome = Self.work(thread: thread, visitors: visitors, end: end, maxCalls: maxCallsPerThread)
                outcomes.withLock { $0[thread] = outcome }
                group.leave()
            }
            worker.name = "reporting-load-\(thread)"
            worker.start()
        }
        group.wait()
        return outcomes.withLock { $0 }
    }

    private static func work(thread: Int, visitors: [ReportingVisitor], end: UInt64, maxCalls: Int) -> ThreadOutcome {
        var outcome = ThreadOutcome()
        let key = key(forThread: thread).rawValue
        var call = 0
        while call < maxCalls, call % 64 != 0 || monotonicNanoseconds() < end {
            // Strided so threads meet on the same visitors in different orders.
            let index = (call / 2 &* 7 &+ thread &* 13) % visitors.count
            let start: UInt64
            if call % 2 == 0 {
                let value = "\(thread)-\(call)"
                start = monotonicNanoseconds()
                visitors[index].setCustomSegments([value])
                outcome.latency.record(monotonicNanoseconds() - start)
                outcome.appended[index, default: []].append(value)
            } else {
                let value = "\(call)"
                start = monotonicNanoseconds()
                visitors[index].setDefaultSegments([key: value])
                outcome.latency.record(monotonicNanoseconds() - start)
                outcome.lastDefault[index] = value
            }
            call += 1
        }
        outcome.calls = call
        return outcome
    }

    /// Updates missing from the final state: custom segments lost or reordered, and default keys
    /// not holding a value last written by one of their writers.
    func lostUpdates(_ outcomes: [ThreadOutcome], client: SegmentsClient) throws -> Int {
        var lost = 0
        for (index, visitorId) in visitorIds.enumerated() {
            let segments = try client.reportingVisitor(visitorId: visitorId).segments
            var expectedCount = 0
            for (thread, outcome) in outcomes.enumerated() {
                let appended = outcome.appended[index] ?? []
                expectedCount += appended.count
                let prefix = "\(thread)-"
                let seen = segments.customSegments.filter { $0.hasPrefix(prefix) }
                if seen != appended { lost += max(1, abs(appended.count - seen.count)) }
            }
            lost += max(0, expectedCount - segments.customSegments.count)
            for key in ReportingSegmentKey.allCases {
                let writers = outcomes.indices.filter { Self.key(forThread: $0) == key }
                let lastValues = Set(writers.compactMap { outcomes[$0].lastDefault[index] })
                guard !lastValues.isEmpty else { continue }
                if let value = segments[key], lastValues.contains(value) { continue }
                lost += 1
            }
        }
        return lost
    }
}
