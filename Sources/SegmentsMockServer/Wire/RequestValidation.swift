import RealtimeSegments

/// The content rules a request must meet beyond its JSON shape, shared by both ways in so that
/// the HTTP server (400) and the in-memory transport (`unexpectedStatus(400)`) refuse the same
/// requests.
enum RequestValidation {
    /// Why a request was refused.
    struct Rejection: Error, Hashable, Sendable {
        var reason: String
    }

    /// Customer ids must name at least one id, and no id may be empty.
    static func validate(customerIds: [String: String]) throws(Rejection) {
        guard !customerIds.isEmpty else { throw Rejection(reason: "\"customer_ids\" is empty") }
        guard customerIds.allSatisfy({ !$0.key.isEmpty && !$0.value.isEmpty }) else {
            throw Rejection(reason: "\"customer_ids\" has an empty name or value")
        }
    }

    /// An event needs valid customer ids and a non-empty type.
    static func validate(_ event: TrackedEvent) throws(Rejection) {
        try validate(customerIds: event.customerIds)
        guard !event.eventType.isEmpty else { throw Rejection(reason: "\"event_type\" is empty") }
    }

    /// A customer update needs valid customer ids.
    static func validate(_ update: CustomerUpdate) throws(Rejection) {
        try validate(customerIds: update.customerIds)
    }

    /// Link-ids take hard ids only (SPEC §7: "every id but cookie"); the cookie is in the path.
    /// An empty dictionary is allowed: it links nothing but the cookie.
    static func validate(cookie: String, externalIds: [String: String]) throws(Rejection) {
        guard !cookie.isEmpty else { throw Rejection(reason: "the cookie is empty") }
        guard externalIds[ProjectStore.cookieIdName] == nil else {
            throw Rejection(reason: "\"external_ids\" must not contain a cookie")
        }
        guard externalIds.allSatisfy({ !$0.key.isEmpty && !$0.value.isEmpty }) else {
            throw Rejection(reason: "\"external_ids\" has an empty name or value")
        }
    }

    /// A batch command follows the rules of its own endpoint.
    static func validate(_ command: TrackingCommand) throws(Rejection) {
        switch command {
        case .event(let event): try validate(event)
        case .customer(let update): try validate(update)
        }
    }
}
