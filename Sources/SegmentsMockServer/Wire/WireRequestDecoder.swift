import Foundation
import RealtimeSegments

/// Decodes the JSON request bodies of SPEC §7 (and the batch endpoint) into model values.
///
/// Strict on shape: a body that is not JSON, lacks a required field, or has a field of the wrong
/// type (a non-string customer id, say) is rejected with a reason, which the server answers with
/// 400. Lenient on the optional parts: a missing `properties` is `{}`, a missing `timestamp` is
/// the server's current time, and unknown extra fields are ignored. Content rules (non-empty ids,
/// ...) are ``RequestValidation``'s, applied by the caller to the decoded values.
enum WireRequestDecoder {
    typealias Rejection = RequestValidation.Rejection

    /// `{"customer_ids": {...}, "event_type": "...", "timestamp": <seconds>, "properties": {...}}`.
    static func event(_ body: Data) throws(Rejection) -> TrackedEvent {
        try decode(WireEvent.self, body).model()
    }

    /// `{"customer_ids": {...}, "properties": {...}}`.
    static func customerUpdate(_ body: Data) throws(Rejection) -> CustomerUpdate {
        try decode(WireCustomerUpdate.self, body).model()
    }

    /// `{"external_ids": {...}}`.
    static func externalIds(_ body: Data) throws(Rejection) -> [String: String] {
        try decode(WireLinkIds.self, body).externalIds
    }

    /// `{"commands": [{"name": "customers/events", "data": <event>}, {"name": "customers", "data": <update>}]}`.
    /// An unknown command name rejects the whole batch, so a batch is applied entirely or not at all.
    static func batch(_ body: Data) throws(Rejection) -> [TrackingCommand] {
        let batch = try decode(WireBatch.self, body)
        var commands: [TrackingCommand] = []
        commands.reserveCapacity(batch.commands.count)
        for (index, command) in batch.commands.enumerated() {
            switch command {
            case .event(let event): commands.append(.event(event.model()))
            case .customer(let update): commands.append(.customer(update.model()))
            case .unknown(let name): throw Rejection(reason: "command \(index): unknown command \"\(name)\"")
            }
        }
        return commands
    }

    private static func decode<Value: Decodable>(_ type: Value.Type, _ body: Data) throws(Rejection) -> Value {
        guard !body.isEmpty else { throw Rejection(reason: "empty body") }
        do {
            return try JSONDecoder().decodeUntrusted(type, from: body)
        } catch let error as DecodingError {
            throw Rejection(reason: describe(error))
        } catch {
            throw Rejection(reason: "invalid JSON")
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }
            return keys.isEmpty ? "the body" : keys.joined(separator: ".")
        }
        switch error {
        case .dataCorrupted(let context): return "invalid JSON in \(path(context))"
        case .keyNotFound(let key, let context): return "missing \"\(key.stringValue)\" in \(path(context))"
        case .typeMismatch(let type, let context): return "expected \(type) at \(path(context))"
        case .valueNotFound(let type, let context): return "null where \(type) expected at \(path(context))"
        @unknown default: return "wrong shape"
        }
    }
}

// MARK: Wire shapes

private struct WireEvent: Decodable {
    var customerIds: [String: String]
    var eventType: String
    var timestamp: Double?
    var properties: [String: JSONValue]?

    enum CodingKeys: String, CodingKey {
        case customerIds = "customer_ids"
        case eventType = "event_type"
        case timestamp, properties
    }

    func model() -> TrackedEvent {
        TrackedEvent(
            customerIds: customerIds, eventType: eventType, timestamp: timestamp ?? Date().timeIntervalSince1970,
            properties: properties ?? [:])
    }
}

private struct WireCustomerUpdate: Decodable {
    var customerIds: [String: String]
    var properties: [String: JSONValue]?

    enum CodingKeys: String, CodingKey {
        case customerIds = "customer_ids"
        case properties
    }

    func model() -> CustomerUpdate {
        CustomerUpdate(customerIds: customerIds, properties: properties ?? [:])
    }
}

private struct WireLinkIds: Decodable {
    var externalIds: [String: String]

    enum CodingKeys: String, CodingKey {
        case externalIds = "external_ids"
    }
}

private struct WireBatch: Decodable {
    var commands: [WireCommand]
}

/// A batch command; `data` is decoded by the shape its `name` announces.
private enum WireCommand: Decodable {
    case event(WireEvent)
    case customer(WireCustomerUpdate)
    case unknown(String)

    enum CodingKeys: String, CodingKey {
        case name, data
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let name = try container.decode(String.self, forKey: .name)
        switch name {
        case "customers/events": self = .event(try container.decode(WireEvent.self, forKey: .data))
        case "customers": self = .customer(try container.decode(WireCustomerUpdate.self, forKey: .data))
        default: self = .unknown(name)
        }
    }

}
