import Foundation
import RealtimeSegments

/// Decodes the JSON request bodies of SPEC §7 (and the batch endpoint) into model values.
///
/// Strict on shape: a body that is not JSON, lacks a required field, or has a field of the wrong
/// type (a non-string customer id, say) is rejected with a reason, which the server answers with
/// 400. Lenient on the optional parts: a missing or `null` `properties` is `{}`, a missing or
/// `null` `timestamp` is `now` (the server's current time), and unknown extra fields are ignored.
/// Content rules (non-empty ids, ...) are ``RequestValidation``'s, applied by the caller to the
/// decoded values.
enum WireRequestDecoder {
    typealias Rejection = RequestValidation.Rejection

    /// `{"customer_ids": {...}, "event_type": "...", "timestamp": <seconds>, "properties": {...}}`.
    static func event(_ body: Data, now: Double) throws(Rejection) -> TrackedEvent {
        try decode(WireEvent.self, body).model(now: now)
    }

    /// `{"customer_ids": {...}, "properties": {...}}`.
    static func customerUpdate(_ body: Data) throws(Rejection) -> CustomerUpdate {
        try decode(WireCustomerUpdate.self, body).model()
    }

    /// `{"external_ids": {...}}`.
    static func externalIds(_ body: Data) throws(Rejection) -> [String: String] {
        try decode(WireLinkIds.self, body).externalIds
    }

    /// `{"commands": [{"name": "customers/events", "data": <event>}, {"name": "customers", "data":
    /// <update>}, {"name": "system/time"}, ...]}`, one ``BatchCommand`` per command, in order.
    ///
    /// Only the envelope is strict (a body that is not an object with a `commands` array throws):
    /// a command that is not an object, has an unknown `name`, or `data` of the wrong shape is a
    /// ``BatchCommand/invalid(_:)`` of its own, so that it fails alone, as on Exponea.
    static func batch(_ body: Data, now: Double) throws(Rejection) -> [BatchCommand] {
        try decode(WireBatch.self, body).commands.map { command in
            switch command {
            case .event(let event): .track(.event(event.model(now: now)))
            case .customer(let update): .track(.customer(update.model()))
            case .systemTime: .systemTime
            case .invalid(let reason): .invalid(reason)
            }
        }
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

    /// A decoding error as one line naming where the body went wrong.
    static func describe(_ error: DecodingError) -> String {
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

    func model(now: Double) -> TrackedEvent {
        TrackedEvent(
            customerIds: customerIds, eventType: eventType, timestamp: timestamp ?? now, properties: properties ?? [:])
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

/// A batch command; `data` is decoded by the shape its `name` announces. Decoding never throws: a
/// command that does not decode is ``invalid(_:)`` with the reason, and the batch goes on.
private enum WireCommand: Decodable {
    case event(WireEvent)
    case customer(WireCustomerUpdate)
    case systemTime
    case invalid(String)

    enum CodingKeys: String, CodingKey {
        case name, data
    }

    init(from decoder: any Decoder) {
        do {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let name = try container.decode(String.self, forKey: .name)
            switch name {
            case "customers/events": self = .event(try container.decode(WireEvent.self, forKey: .data))
            case "customers": self = .customer(try container.decode(WireCustomerUpdate.self, forKey: .data))
            case "system/time": self = .systemTime
            default: self = .invalid("unknown command \"\(name)\"")
            }
        } catch let error as DecodingError {
            self = .invalid(WireRequestDecoder.describe(error))
        } catch {
            self = .invalid("wrong shape")
        }
    }
}
