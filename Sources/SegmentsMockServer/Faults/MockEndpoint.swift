/// The endpoints of the mock backend (SPEC §7), the unit of fault injection and request counting.
///
/// Both ways in map onto these: the HTTP server by route, ``MockSegmentsTransport`` by method
/// (`trackEvents` with one event is ``trackEvent``, with several ``trackBatch``;
/// `fetchQualifiedSegments` is ``qualifiedSegments``); ``systemTime`` is reached over HTTP only.
public enum MockEndpoint: String, Sendable, CaseIterable, Hashable {
    /// `GET /webxp/projects/{token}/segments?cookie={cookie}`.
    case fetchSegments
    /// `POST /webxp/projects/{token}/cookies/{cookie}/link-ids`.
    case linkIds
    /// `POST /track/v2/projects/{token}/customers/events`.
    case trackEvent
    /// `POST /track/v2/projects/{token}/customers`.
    case trackCustomer
    /// `POST /track/v2/projects/{token}/batch`.
    case trackBatch
    /// `POST /v3/graphql`: the ODP-style qualified-segments query (SPEC §9).
    case qualifiedSegments
    /// `GET /track/v2/projects/{token}/system/time`: the server's clock (Exponea's tracking API).
    case systemTime

    /// A stable small number per endpoint (its position in `allCases`), used to derive each
    /// endpoint's random stream from the plan's seed. `hashValue` would not do: it is randomized
    /// per process, and fault sequences must be the same in every run.
    var streamIndex: UInt64 {
        switch self {
        case .fetchSegments: 0
        case .linkIds: 1
        case .trackEvent: 2
        case .trackCustomer: 3
        case .trackBatch: 4
        // Appended, never inserted: an endpoint's index seeds its stream, so the existing
        // endpoints keep the fault sequences they had before this one existed.
        case .qualifiedSegments: 5
        case .systemTime: 6
        }
    }
}
