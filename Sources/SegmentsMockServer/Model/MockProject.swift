import RealtimeSegments

/// A project the mock backend knows: requests must name its token and authenticate with its key.
public struct MockProject: Sendable, Hashable {
    /// The project token (in every URL path).
    public var token: String
    /// The API key a request must present as `authorization: Token <apiKey>` or `Bearer <apiKey>`.
    public var apiKey: String

    /// Creates a project.
    public init(token: String, apiKey: String) {
        self.token = token
        self.apiKey = apiKey
    }

    /// `true` when `authorization` carries this project's key (either scheme).
    func accepts(_ authorization: SegmentsAuthorization?) -> Bool {
        switch authorization {
        case .token(let key)?, .bearer(let key)?: key == apiKey
        case nil: false
        }
    }

    /// `true` when the `authorization` header value is `Token <apiKey>` or `Bearer <apiKey>`
    /// (scheme case-insensitive, as HTTP auth schemes are).
    func accepts(headerValue: String?) -> Bool {
        guard let headerValue, let space = headerValue.firstIndex(of: " ") else { return false }
        let scheme = headerValue[..<space].lowercased()
        let key = headerValue[headerValue.index(after: space)...].trimmingPrefix(" ")
        return (scheme == "token" || scheme == "bearer") && key == apiKey
    }
}
