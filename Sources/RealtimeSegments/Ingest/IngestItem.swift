/// What flows through the ingestion ring, in the order the app made the calls: events, and the
/// identity changes that decide which customer the following events belong to.
@_spi(Benchmarks)
public enum IngestItem: Sendable {
    /// `trackEvent`: the customer ids are stamped by the engine thread, in ring order.
    case event(eventType: String, properties: [String: JSONValue], timestamp: Double)
    /// `identifyCustomer`: the identity it produced, the properties to upload, and whether it named
    /// a hard id (reload trigger 3).
    case identify(IdentitySnapshot, properties: [String: JSONValue], namedHardId: Bool)
    /// `anonymize`: the new anonymous identity.
    case anonymize(IdentitySnapshot)
}
