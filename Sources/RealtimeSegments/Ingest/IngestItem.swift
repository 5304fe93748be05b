/// What flows through the ingestion ring, in the order the app made the calls: events, and the
/// identity changes that decide which customer the following events belong to.
@_spi(Benchmarks)
public enum IngestItem: Sendable {
    /// `trackEvent`: the customer ids are stamped by the engine thread, in ring order, and so is
    /// the time when `timestamp` is ``stampWhenTaken``.
    case event(eventType: String, properties: [String: JSONValue], timestamp: Double)
    /// `identifyCustomer`: the identity it produced, the properties to upload, and whether it named
    /// a hard id (reload trigger 3).
    case identify(IdentitySnapshot, properties: [String: JSONValue], namedHardId: Bool)
    /// `anonymize`: the new anonymous identity.
    case anonymize(IdentitySnapshot)
}

extension IngestItem {
    /// The timestamp of an event the app did not stamp: the engine stamps it when it takes the
    /// event from the ring. NaN, which `trackEvent` refuses from the app, rather than an optional:
    /// an optional would make every ring slot a word longer.
    static let stampWhenTaken = Double.nan

    /// Initializes `slot` with a tracked event from its parts.
    ///
    /// The parts come in registers and are stored straight into the slot; an `IngestItem` passed
    /// whole is five words, so it travels through a stack copy (see
    /// ``EngineChannels/ingestEvent(eventType:properties:timestamp:)``). The parts are consumed,
    /// not copied: nothing is retained here, so no retain can be moved below the publication that
    /// follows (see ``EventRing``'s `copy(_:into:)`). Inlined into `trackEvent`, which receives
    /// them owned from its caller.
    @inline(__always)
    static func initializeEvent(
        at slot: UnsafeMutablePointer<IngestItem>, eventType: consuming String,
        properties: consuming [String: JSONValue], timestamp: Double
    ) {
        slot.initialize(to: .event(eventType: eventType, properties: properties, timestamp: timestamp))
    }
}
