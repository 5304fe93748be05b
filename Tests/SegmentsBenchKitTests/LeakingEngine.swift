import Foundation
import RealtimeSegments
import SegmentsBenchKit
import Synchronization

/// `SegmentsClient` with a leak of the customer left by `anonymize()`: either 20 ms after it
/// returns (twice the scenarios' grace) every callback is called again with the last segments it
/// was given before the switch, or the first pull after it answers what the last pull before it
/// answered. Or, `repeats`, no leak but every delivery made twice; or, `refusals`, every 100th
/// `trackEvent` throws.
final class LeakingEngine: BenchEngine {
    enum Leak { case callbacks, pulls, repeats, refusals }

    /// The last segments one callback was given.
    private final class LastDelivery: Sendable {
        let segments = Mutex<[Segment]?>(nil)
    }

    private struct Registration {
        let registered: SegmentCallbackData
        let last: LastDelivery
    }

    private let inner: SegmentsClientEngine
    private let leak: Leak
    private let registrations = Mutex<[UUID: Registration]>([:])
    /// The last pull's answer, and whether the next pull gives it again.
    private let pulls = Mutex<(last: [Segment], replayNext: Bool)>(([], false))
    /// `trackEvent` calls so far (for `refusals`).
    private let trackCalls = Mutex(0)

    static func factory(leaking leak: Leak) -> BenchEngineFactory {
        BenchEngineFactory(name: "leaking") { configuration in
            LeakingEngine(inner: SegmentsClientEngine(SegmentsClient(configuration: configuration)), leak: leak)
        }
    }

    private init(inner: SegmentsClientEngine, leak: Leak) {
        self.inner = inner
        self.leak = leak
    }

    var customerIds: [String: String] { inner.customerIds }
    func start() { inner.start() }
    func stop() { inner.stop() }
    func addCallbacks(_ callbacks: [SegmentCallbackData]) {
        let wrapped = callbacks.map { callback in
            let last = LastDelivery()
            let repeats = leak == .repeats
            let registered = SegmentCallbackData(category: callback.category, isIncludeFirstLoad: callback.isIncludeFirstLoad) { segments in
                last.segments.withLock { $0 = segments }
                callback.onNewData(segments)
                if repeats { callback.onNewData(segments) }
            }
            registrations.withLock { $0[callback.id] = Registration(registered: registered, last: last) }
            return registered
        }
        inner.addCallbacks(wrapped)
    }
    func removeCallback(_ callback: SegmentCallbackData) {
        if let registration = registrations.withLock({ $0.removeValue(forKey: callback.id) }) {
            inner.removeCallback(registration.registered)
        }
    }
    func trackEvent(eventType: String, properties: [String: JSONValue]) throws {
        if leak == .refusals, trackCalls.withLock({ calls in calls += 1; return calls % 100 == 0 }) {
            throw SegmentsError.invalidArgument("refused")
        }
        try inner.trackEvent(eventType: eventType, properties: properties)
    }
    func identifyCustomer(customerIds: [String: String], properties: [String: JSONValue]) throws {
        try inner.identifyCustomer(customerIds: customerIds, properties: properties)
    }
    func anonymize() {
        if leak != .callbacks {
            inner.anonymize()
            if leak == .pulls { pulls.withLock { $0.replayNext = true } }
            return
        }
        let replays = registrations.withLock { registrations in
            registrations.values.compactMap { registration in
                registration.last.segments.withLock { $0 }.map { (registration.registered.onNewData, $0) }
            }
        }
        inner.anonymize()
        Thread.detachNewThread {
            usleep(20_000)
            for (onNewData, segments) in replays { onNewData(segments) }
        }
    }
    func getSegments(category: SegmentCategory, force: Bool) async throws -> [Segment] {
        try await inner.getSegments(category: category, force: force)
    }
    func getSegments(category: SegmentCategory, force: Bool, result: @escaping @Sendable ([Segment]) -> Void) {
        let replay = pulls.withLock { pulls -> [Segment]? in
            defer { pulls.replayNext = false }
            return pulls.replayNext ? pulls.last : nil
        }
        if let replay { return result(replay) }
        inner.getSegments(category: category, force: force) { [self] segments in
            pulls.withLock { $0.last = segments }
            result(segments)
        }
    }
    func waitUntilIdle(timeout: Duration) -> Bool { inner.waitUntilIdle(timeout: timeout) }
    var counters: BenchEngineCounters { inner.counters }
}
