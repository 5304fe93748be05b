import RealtimeSegments

/// `{"external_ids": {...}}`, the link-ids request body.
struct LinkIdsBody: Encodable {
    var externalIds: [String: String]

    private enum CodingKeys: String, CodingKey {
        case externalIds = "external_ids"
    }
}

/// `{"commands": [{"name": "customers/events", "data": {...}}, ...]}`, the batch tracking body.
struct BatchBody: Encodable {
    struct Command: Encodable {
        var name: String
        var data: TrackedEvent
    }

    var commands: [Command]

    init(events: [TrackedEvent]) {
        commands = events.map { Command(name: "customers/events", data: $0) }
    }
}
