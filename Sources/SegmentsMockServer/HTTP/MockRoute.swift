import Foundation
import NIOHTTP1

/// A request target of the mock server (SPEC §7), parsed from the request URI.
enum MockRoute: Hashable, Sendable {
    /// `GET /webxp/projects/{token}/segments?cookie={cookie}` (`cookie` is `nil` when absent).
    case fetchSegments(projectToken: String, cookie: String?)
    /// `POST /webxp/projects/{token}/cookies/{cookie}/link-ids`.
    case linkIds(projectToken: String, cookie: String)
    /// `POST /track/v2/projects/{token}/customers/events`.
    case trackEvent(projectToken: String)
    /// `POST /track/v2/projects/{token}/customers`.
    case trackCustomer(projectToken: String)
    /// `POST /track/v2/projects/{token}/batch`.
    case trackBatch(projectToken: String)
    /// `GET /track/v2/projects/{token}/system/time`.
    case systemTime(projectToken: String)
    /// `POST /v3/graphql`: qualified segments (SPEC §9); the project is the one of `x-api-key`.
    case qualifiedSegments

    /// Parses `uri` (path and query); `nil` when no route has that path. Path segments and query
    /// values are percent-decoded.
    init?(uri: String) {
        let parts = uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let rawPath = parts[0]
        guard rawPath.hasPrefix("/") else { return nil }
        var segments: [String] = []
        for raw in rawPath.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            guard let decoded = String(raw).removingPercentEncoding, !decoded.isEmpty else { return nil }
            segments.append(decoded)
        }
        let query = parts.count > 1 ? Self.queryItems(parts[1]) : [:]

        switch segments.count {
        case 2 where segments[0] == "v3" && segments[1] == "graphql":
            self = .qualifiedSegments
        case 4 where segments[0] == "webxp" && segments[1] == "projects" && segments[3] == "segments":
            self = .fetchSegments(projectToken: segments[2], cookie: query["cookie"])
        case 5 where segments[0] == "track" && segments[1] == "v2" && segments[2] == "projects":
            switch segments[4] {
            case "customers": self = .trackCustomer(projectToken: segments[3])
            case "batch": self = .trackBatch(projectToken: segments[3])
            default: return nil
            }
        case 6 where segments[0] == "track" && segments[1] == "v2" && segments[2] == "projects"
            && segments[4] == "system" && segments[5] == "time":
            self = .systemTime(projectToken: segments[3])
        case 6 where segments[0] == "webxp" && segments[1] == "projects" && segments[3] == "cookies"
            && segments[5] == "link-ids":
            self = .linkIds(projectToken: segments[2], cookie: segments[4])
        case 6 where segments[0] == "track" && segments[1] == "v2" && segments[2] == "projects"
            && segments[4] == "customers" && segments[5] == "events":
            self = .trackEvent(projectToken: segments[3])
        default:
            return nil
        }
    }

    /// The endpoint, for counting and fault injection.
    var endpoint: MockEndpoint {
        switch self {
        case .fetchSegments: .fetchSegments
        case .linkIds: .linkIds
        case .trackEvent: .trackEvent
        case .trackCustomer: .trackCustomer
        case .trackBatch: .trackBatch
        case .qualifiedSegments: .qualifiedSegments
        case .systemTime: .systemTime
        }
    }

    /// The only method the route accepts.
    var method: HTTPMethod {
        switch self {
        case .fetchSegments, .systemTime: .GET
        case .linkIds, .trackEvent, .trackCustomer, .trackBatch, .qualifiedSegments: .POST
        }
    }

    /// The project token in the path; `nil` for ``qualifiedSegments``, whose API key names the project.
    var projectToken: String? {
        switch self {
        case .fetchSegments(let token, _), .linkIds(let token, _), .trackEvent(let token), .trackCustomer(let token),
            .trackBatch(let token), .systemTime(let token):
            token
        case .qualifiedSegments:
            nil
        }
    }

    /// `name=value` pairs of a query string, percent-decoded; the first occurrence of a name wins.
    private static func queryItems(_ query: Substring) -> [String: String] {
        var items: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let nameAndValue = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = String(nameAndValue[0]).removingPercentEncoding, items[name] == nil else { continue }
            let value = nameAndValue.count > 1 ? String(nameAndValue[1]).removingPercentEncoding : ""
            if let value { items[name] = value }
        }
        return items
    }
}
