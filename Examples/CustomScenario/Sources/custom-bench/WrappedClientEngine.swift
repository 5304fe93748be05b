import RealtimeSegments
import SegmentsBenchKit

/// An engine of this package for the scenarios to drive: here a `SegmentsClient` wrapped, every
/// call forwarded. Any type that conforms to `BenchEngine` can stand here; the scenarios make it
/// from the configuration they would give a `SegmentsClient`, whose transport (wrapped by the
/// harness to measure) it must use to reach the server.
final class WrappedClientEngine: BenchEngine {
    /// What the registry holds: makes one engine per client the scenario would make. The name is
    /// what reports record as `engine`.
    static let factory = BenchEngineFactory(name: "wrapped-segments-client") { configuration in
        WrappedClientEngine(SegmentsClientEngine(SegmentsClient(configuration: configuration)))
    }

    private let inner: SegmentsClientEngine

    init(_ inner: SegmentsClientEngine) { self.inner = inner }

    var customerIds: [String: String] { inner.customerIds }
    func start() { inner.start() }
    func stop() { inner.stop() }
    func addCallbacks(_ callbacks: [SegmentCallbackData]) { inner.addCallbacks(callbacks) }
    func removeCallback(_ callback: SegmentCallbackData) { inner.removeCallback(callback) }

    func trackEvent(eventType: String, properties: [String: JSONValue]) throws {
        try inner.trackEvent(eventType: eventType, properties: properties)
    }

    func identifyCustomer(customerIds: [String: String], properties: [String: JSONValue]) throws {
        try inner.identifyCustomer(customerIds: customerIds, properties: properties)
    }

    func anonymize() { inner.anonymize() }

    func getSegments(category: SegmentCategory, force: Bool) async throws -> [Segment] {
        try await inner.getSegments(category: category, force: force)
    }

    func getSegments(category: SegmentCategory, force: Bool, result: @escaping @Sendable ([Segment]) -> Void) {
        inner.getSegments(category: category, force: force, result: result)
    }

    func waitUntilIdle(timeout: Duration) -> Bool { inner.waitUntilIdle(timeout: timeout) }
    var counters: BenchEngineCounters { inner.counters }
}
