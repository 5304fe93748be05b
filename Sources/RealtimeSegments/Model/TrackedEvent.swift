/// A tracked event as it is uploaded: stamped with the customer ids current when it was tracked.
///
/// Wire form (`POST /track/v2/projects/{token}/customers/events`):
/// `{"customer_ids": {...}, "event_type": "...", "timestamp": <seconds>, "properties": {...}}`.
public struct TrackedEvent: Hashable, Sendable, Codable {
    /// The customer ids (cookie and hard ids) of the customer the event belongs to.
    public var customerIds: [String: String]
    /// The event type, for example `"purchase"`.
    public var eventType: String
    /// Seconds since 1970.
    public var timestamp: Double
    /// Event properties.
    public var properties: [String: JSONValue]

    /// Creates an event.
    public init(customerIds: [String: String], eventType: String, timestamp: Double, properties: [String: JSONValue]) {
        self.customerIds = customerIds
        self.eventType = eventType
        self.timestamp = timestamp
        self.properties = properties
    }

    private enum CodingKeys: String, CodingKey {
        case customerIds = "customer_ids"
        case eventType = "event_type"
        case timestamp
        case properties
    }
}

/// A customer record update, sent by `identifyCustomer`.
///
/// Wire form (`POST /track/v2/projects/{token}/customers`): `{"customer_ids": {...}, "properties": {...}}`.
public struct CustomerUpdate: Hashable, Sendable, Codable {
    /// Every id of the customer, the cookie included.
    public var customerIds: [String: String]
    /// Customer properties to set.
    public var properties: [String: JSONValue]

    /// Creates an update.
    public init(customerIds: [String: String], properties: [String: JSONValue]) {
        self.customerIds = customerIds
        self.properties = properties
    }

    private enum CodingKeys: String, CodingKey {
        case customerIds = "customer_ids"
        case properties
    }
}
