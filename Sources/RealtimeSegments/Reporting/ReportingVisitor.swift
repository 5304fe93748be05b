/// One visitor's reporting segments (Convert-style, SPEC §10): set them, read them, and overlay
/// them on the attributes used for audience evaluation. Obtained from
/// ``SegmentsClient/reportingVisitor(visitorId:)``.
///
/// ```swift
/// let visitor = try client.reportingVisitor(visitorId: "v-1")
/// visitor.setDefaultSegments(["country": "DE", "campaign": "spring"])
/// visitor.setCustomSegments(["vip"])
/// let attributes = visitor.attributesForAudienceEvaluation(overlaying: ["country": "FR"])
/// // ["country": "FR", "campaign": "spring"]: explicit attributes win
/// ```
///
/// Threading: a value; every method may be called from any thread. Each setter is one atomic
/// read-modify-write of the visitor's segments (concurrent setters never lose an update) and
/// publishes exactly one ``ReportingSegmentsEvent`` (see ``ReportingSegmentsManager``).
///
/// Errors: none are thrown; an unknown key is logged as a `Segments:` warning and ignored.
public struct ReportingVisitor: Sendable {
    /// The visitor's id (never empty).
    public let visitorId: String
    private let manager: ReportingSegmentsManager

    init(visitorId: String, manager: ReportingSegmentsManager) {
        self.visitorId = visitorId
        self.manager = manager
    }

    /// Merges default segments: each key given overwrites its segment, the others are kept.
    /// Keys are the raw values of ``ReportingSegmentKey`` (`country`, `browser`, `devices`,
    /// `source`, `campaign`, `visitorType`); any other key is logged as a `Segments:` warning naming
    /// it and ignored, while the known keys of the same call still land. Custom segments are untouched.
    public func setDefaultSegments(_ segments: [String: String]) {
        manager.setDefaultSegments(segments, visitorId: visitorId)
    }

    /// Appends custom segments in order, without removing duplicates (the backend dedups).
    /// Default segments are untouched.
    public func setCustomSegments(_ segments: [String]) {
        manager.setCustomSegments(segments, visitorId: visitorId)
    }

    /// The visitor's current segments.
    public var segments: ReportingSegments { manager.segments(of: visitorId) }

    /// `attributes` with the six default segments added for the keys the caller did not set:
    /// explicit attributes win. Custom segments are not overlaid.
    public func attributesForAudienceEvaluation(overlaying attributes: [String: JSONValue]) -> [String: JSONValue] {
        let segments = segments
        var merged = attributes
        for key in ReportingSegmentKey.allCases {
            if let value = segments[key], merged[key.rawValue] == nil { merged[key.rawValue] = .string(value) }
        }
        return merged
    }
}
