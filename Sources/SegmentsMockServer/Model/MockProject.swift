import RealtimeSegments

/// A project the mock backend knows: requests must name its token and authenticate with its key
/// (or, over HTTP, with its key pair).
public struct MockProject: Sendable, Hashable {
    /// The project token (in every URL path).
    public var token: String
    /// The API key a request must present as `authorization: Token <apiKey>` or `Bearer <apiKey>`.
    public var apiKey: String
    /// The private key a request may present instead, as `authorization: Basic base64(<id>:<secret>)`
    /// (HTTP server only); `nil` refuses every Basic header.
    public var keyPair: MockKeyPair?

    /// Creates a project.
    public init(token: String, apiKey: String, keyPair: MockKeyPair? = nil) {
        self.token = token
        self.apiKey = apiKey
        self.keyPair = keyPair
    }

    /// `true` when `authorization` carries this project's key (`Token` or `Bearer`) or key pair (`Basic`).
    func accepts(_ authorization: SegmentsAuthorization?) -> Bool {
        switch authorization {
        case .token(let key)?, .bearer(let key)?: key == apiKey
        case .basic(let id, let secret)?: keyPair.map { $0.id == id && $0.secret == secret } ?? false
        case nil: false
        }
    }

    /// `true` when the parsed `authorization` header carries this project's key or key pair.
    func accepts(_ credentials: AuthorizationHeader) -> Bool {
        switch credentials {
        case .key(let key): key == apiKey
        case .basic(let id, let secret): keyPair.map { $0.id == id && $0.secret == secret } ?? false
        }
    }
}
