import RealtimeSegments

/// A snapshot of one customer of the mock backend, for tests and the harness.
public struct MockCustomer: Sendable, Hashable {
    /// The backend's stable key of the customer.
    public var customerKey: UInt64
    /// Every cookie linked to the customer, the primary (oldest still linked) first.
    public var cookies: [String]
    /// The customer's hard ids (`registered`, ...), by id name.
    public var externalIds: [String: String]
    /// The properties set by customer updates, merged (later values win).
    public var properties: [String: JSONValue]
    /// The number of events tracked for the customer (all of them, not only the retained ones).
    public var eventCount: Int
    /// The number of events tracked per event type.
    public var eventCountsByType: [String: Int]

    /// Creates a snapshot.
    public init(
        customerKey: UInt64, cookies: [String], externalIds: [String: String], properties: [String: JSONValue],
        eventCount: Int, eventCountsByType: [String: Int]
    ) {
        self.customerKey = customerKey
        self.cookies = cookies
        self.externalIds = externalIds
        self.properties = properties
        self.eventCount = eventCount
        self.eventCountsByType = eventCountsByType
    }
}
