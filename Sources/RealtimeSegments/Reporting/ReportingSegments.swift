/// One visitor's reporting segments (Convert-style, SPEC §10): six optional default segments that
/// merge, and custom segments that append.
///
/// JSON keys are camelCase (`visitorType`, `customSegments`); `nil` fields are omitted and a
/// missing `customSegments` decodes as `[]`.
///
/// Threading: a value type; safe to share.
public struct ReportingSegments: Codable, Sendable, Hashable {
    /// The visitor's country.
    public var country: String?
    /// The visitor's browser.
    public var browser: String?
    /// The visitor's device class.
    public var devices: String?
    /// The traffic source.
    public var source: String?
    /// The marketing campaign.
    public var campaign: String?
    /// New or returning visitor.
    public var visitorType: String?
    /// Custom segments in the order they were added; duplicates are kept (the backend dedups).
    public var customSegments: [String]

    /// Creates segments; every field defaults to empty.
    public init(
        country: String? = nil, browser: String? = nil, devices: String? = nil, source: String? = nil,
        campaign: String? = nil, visitorType: String? = nil, customSegments: [String] = []
    ) {
        self.country = country
        self.browser = browser
        self.devices = devices
        self.source = source
        self.campaign = campaign
        self.visitorType = visitorType
        self.customSegments = customSegments
    }

    /// The default segment of `key`.
    public subscript(key: ReportingSegmentKey) -> String? {
        get {
            switch key {
            case .country: country
            case .browser: browser
            case .devices: devices
            case .source: source
            case .campaign: campaign
            case .visitorType: visitorType
            }
        }
        set {
            switch key {
            case .country: country = newValue
            case .browser: browser = newValue
            case .devices: devices = newValue
            case .source: source = newValue
            case .campaign: campaign = newValue
            case .visitorType: visitorType = newValue
            }
        }
    }

    private enum CodingKeys: String, CodingKey {
        case country, browser, devices, source, campaign, visitorType, customSegments
    }

    /// Decodes the stored form; a missing key reads as `nil` (custom segments as `[]`).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        country = try container.decodeIfPresent(String.self, forKey: .country)
        browser = try container.decodeIfPresent(String.self, forKey: .browser)
        devices = try container.decodeIfPresent(String.self, forKey: .devices)
        source = try container.decodeIfPresent(String.self, forKey: .source)
        campaign = try container.decodeIfPresent(String.self, forKey: .campaign)
        visitorType = try container.decodeIfPresent(String.self, forKey: .visitorType)
        customSegments = try container.decodeIfPresent([String].self, forKey: .customSegments) ?? []
    }
}
