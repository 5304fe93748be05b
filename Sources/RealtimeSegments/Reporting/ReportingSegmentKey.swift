/// The six default reporting segment keys (SPEC §10), spelled as on the wire.
///
/// ``ReportingVisitor/setDefaultSegments(_:)`` accepts exactly these keys; any other key is logged
/// and ignored.
public enum ReportingSegmentKey: String, CaseIterable, Codable, Sendable, Hashable {
    /// The visitor's country.
    case country
    /// The visitor's browser.
    case browser
    /// The visitor's device class.
    case devices
    /// The traffic source.
    case source
    /// The marketing campaign.
    case campaign
    /// New or returning visitor.
    case visitorType
}
