import RealtimeSegments

/// An engine the scenarios can drive: what they call on it, and nothing else. The harness measures
/// ``SegmentsClientEngine`` (a `SegmentsClient`) unless a ``ScenarioRegistry`` names another
/// engine (``BenchEngineFactory``); every scenario that does not need `SegmentsClient` itself
/// (``Scenario/needsSegmentsClient``) then drives that one instead, with the same load and the
/// same measurements.
///
/// An engine is made from the `SegmentsConfiguration` the harness would give a `SegmentsClient`
/// (``BenchEngineFactory``): it must reach the server through that configuration's `transport`,
/// which the harness wraps to time calls and mark responses, and honour the settings it can
/// (debounce, max wait, engine group …).
///
/// Threading: every method may be called from any thread, several at once, as on a
/// `SegmentsClient`; callbacks are invoked off the calling thread.
public protocol BenchEngine: AnyObject, Sendable {
    /// The customer ids now, the `cookie` among them.
    var customerIds: [String: String] { get }
    /// Starts the engine: callbacks registered before this get their first load.
    func start()
    /// Stops the engine, uploading what it holds first; nothing is delivered afterwards.
    func stop()
    /// Registers `callbacks`, in order.
    func addCallbacks(_ callbacks: [SegmentCallbackData])
    /// Unregisters `callback` (the very value registered).
    func removeCallback(_ callback: SegmentCallbackData)
    /// Tracks an event for the current customer; returns once it is queued.
    /// - Throws: when the event is refused (not started, invalid).
    func trackEvent(eventType: String, properties: [String: JSONValue]) throws
    /// Merges `customerIds` (a new hard id switches the customer) and `properties` into the customer.
    /// - Throws: when the update is refused (not started, empty, invalid).
    func identifyCustomer(customerIds: [String: String], properties: [String: JSONValue]) throws
    /// Switches to a new anonymous customer (a new cookie).
    func anonymize()
    /// The segments of `category` for the current customer, from a fresh-enough cache or the server.
    func getSegments(category: SegmentCategory, force: Bool) async throws -> [Segment]
    /// As ``getSegments(category:force:)``, answering `result` on another thread (`[]` on failure).
    func getSegments(category: SegmentCategory, force: Bool, result: @escaping @Sendable ([Segment]) -> Void)
    /// Blocks until no work is queued or in flight, or `timeout` passes; returns whether it got idle.
    func waitUntilIdle(timeout: Duration) -> Bool
    /// The engine's own counts so far (those it does not keep read 0).
    var counters: BenchEngineCounters { get }
}

extension BenchEngine {
    /// Registers one callback.
    public func addCallback(callbackData: SegmentCallbackData) { addCallbacks([callbackData]) }

    /// The segments of `category`, from a fresh-enough cache or the server.
    public func getSegments(category: SegmentCategory) async throws -> [Segment] {
        try await getSegments(category: category, force: false)
    }

    /// The segments of `category`, from a fresh-enough cache or the server, answered to `result`.
    public func getSegments(category: SegmentCategory, result: @escaping @Sendable ([Segment]) -> Void) {
        getSegments(category: category, force: false, result: result)
    }

    /// Tracks an event without properties.
    public func trackEvent(eventType: String) throws { try trackEvent(eventType: eventType, properties: [:]) }

    /// Merges `customerIds` without properties (see ``identifyCustomer(customerIds:properties:)``).
    /// A signature of its own: with the requirement's, it would satisfy it and call itself.
    public func identifyCustomer(customerIds: [String: String]) throws {
        try identifyCustomer(customerIds: customerIds, properties: [:])
    }

    /// Merges `properties` into the current customer (see ``identifyCustomer(customerIds:properties:)``).
    public func identifyCustomer(properties: [String: JSONValue]) throws {
        try identifyCustomer(customerIds: [:], properties: properties)
    }

    /// The current cookie (`""` if none).
    public var cookie: String { customerIds["cookie"] ?? "" }
}
