import RealtimeSegments
import RealtimeSegmentsTesting

/// The engine the harness measures by default: a `SegmentsClient`, each ``BenchEngine`` call
/// forwarded to it as is.
public final class SegmentsClientEngine: BenchEngine {
    /// The client driven.
    public let client: SegmentsClient

    /// Drives `client` (started or not).
    public init(_ client: SegmentsClient) { self.client = client }

    public var customerIds: [String: String] { client.customerIds }
    public func start() { client.start() }
    public func stop() { client.stop() }
    public func addCallbacks(_ callbacks: [SegmentCallbackData]) { client.segmentation.addCallbacks(callbacks) }
    public func removeCallback(_ callback: SegmentCallbackData) { client.segmentation.removeCallback(callbackData: callback) }

    public func trackEvent(eventType: String, properties: [String: JSONValue]) throws {
        try client.trackEvent(eventType: eventType, properties: properties)
    }

    public func identifyCustomer(customerIds: [String: String], properties: [String: JSONValue]) throws {
        try client.identifyCustomer(customerIds: customerIds, properties: properties)
    }

    public func anonymize() { client.anonymize() }

    public func getSegments(category: SegmentCategory, force: Bool) async throws -> [Segment] {
        try await client.getSegments(category: category, force: force)
    }

    public func getSegments(category: SegmentCategory, force: Bool, result: @escaping @Sendable ([Segment]) -> Void) {
        client.getSegments(category: category, force: force, result: result)
    }

    public func waitUntilIdle(timeout: Duration) -> Bool { client.waitUntilIdle(timeout: timeout) }
    public var counters: BenchEngineCounters { BenchEngineCounters(client.statistics) }
}
