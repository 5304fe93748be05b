import Foundation
import RealtimeSegments
import RealtimeSegmentsHTTP

/// A segments server the harness drives instead of its in-process mock (`--target`): its base URL,
/// project token and authorization. Builds the transport and the client configuration for it, so
/// that every scenario that runs against a target connects the same way.
///
/// A value; building one checks the URL and refuses a non-loopback host unless remote targets are
/// allowed (``init(url:projectToken:authorization:allowRemote:)``).
public struct BenchTarget: Sendable {
    /// The API base URL (`http` or `https`, with a host).
    public let baseURL: URL
    /// The project token the client sends in its paths.
    public let projectToken: String
    /// What the client sends as `authorization`.
    public let authorization: SegmentsAuthorization
    /// The transport settings for ``baseURL``, validated once.
    private let http: HTTPTransportConfiguration

    /// A target at `url` (`http(s)://host:port`), checked.
    ///
    /// - Parameters:
    ///   - authorization: `token:KEY` (`authorization: Token KEY`), `bearer:TOKEN`
    ///     (`authorization: Bearer TOKEN`) or `basic:KEY_ID:SECRET` (HTTP Basic with the key pair).
    ///   - allowRemote: Whether a host other than loopback (127.0.0.0/8, `::1`, `localhost`) is
    ///     accepted: a benchmark sends a server a lot of traffic, so a remote one is opt-in.
    /// - Throws: ``BenchTargetError`` for a URL that is not `http(s)://host[:port]`, an empty
    ///   project token, an authorization of another form, or a remote host without `allowRemote`.
    public init(url: String, projectToken: String, authorization: String, allowRemote: Bool) throws(BenchTargetError) {
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = parsed.host, !host.isEmpty, parsed.query == nil, parsed.fragment == nil, parsed.user == nil,
            parsed.path.isEmpty || parsed.path == "/"
        else { throw .invalidURL(url) }
        if let port = parsed.port, !(1...65_535).contains(port) { throw .invalidPort(port) }
        guard let http = try? HTTPTransportConfiguration(baseURL: parsed) else { throw .invalidURL(url) }
        guard !projectToken.isEmpty, !projectToken.contains("/") else { throw .invalidProjectToken }
        guard allowRemote || Self.isLoopback(host: host) else { throw .remoteNotAllowed(host: host) }
        self.baseURL = parsed
        self.http = http
        self.projectToken = projectToken
        self.authorization = try Self.parseAuthorization(authorization)
    }

    /// `token:KEY`, `bearer:TOKEN` or `basic:KEY_ID:SECRET` as the authorization it names.
    static func parseAuthorization(_ text: String) throws(BenchTargetError) -> SegmentsAuthorization {
        // Without a `:` the whole text may be a key: it is never echoed.
        guard let colon = text.firstIndex(of: ":") else { throw .invalidAuthorization(kind: "") }
        let kind = text[..<colon].lowercased()
        let value = String(text[text.index(after: colon)...])
        switch kind {
        case "token", "bearer":
            guard !value.isEmpty else { throw .emptyCredential(kind: kind) }
            return kind == "token" ? .token(value) : .bearer(value)
        case "basic":
            guard let pair = value.firstIndex(of: ":") else { throw .invalidAuthorization(kind: kind) }
            guard pair != value.startIndex else { throw .emptyCredential(kind: kind) }
            return .basic(keyId: String(value[..<pair]), secret: String(value[value.index(after: pair)...]))
        default: throw .invalidAuthorization(kind: kind)
        }
    }

    /// Whether `host` names this machine: an address in 127.0.0.0/8, `::1` (bracketed or not), or
    /// `localhost`.
    public static func isLoopback(host: String) -> Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let lowered = bare.lowercased()
        if lowered == "localhost" || lowered == "::1" || lowered == "0:0:0:0:0:0:0:1" { return true }
        let octets = lowered.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4, octets.allSatisfy({ $0.count <= 3 && UInt8($0) != nil }) else { return false }
        return octets[0] == "127"
    }

    /// The URL as the report records it: scheme, host and port, never the credentials.
    public var description: String {
        var text = baseURL.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }

    /// An HTTP transport to the target whose requests give up after `requestTimeout`.
    public func makeTransport(requestTimeout: Duration) -> HTTPSegmentsTransport {
        var configuration = http
        configuration.requestTimeout = requestTimeout
        return HTTPSegmentsTransport(configuration: configuration)
    }

    /// A client configuration for the target's project and authorization over `transport`
    /// (usually ``makeTransport(requestTimeout:)``'s, perhaps wrapped to measure it); every other
    /// setting is the default.
    public func configuration(transport: any SegmentsTransport) -> SegmentsConfiguration {
        SegmentsConfiguration(projectToken: projectToken, authorization: authorization, transport: transport)
    }
}

// The transport settings follow from the base URL, so they take no part in equality.
extension BenchTarget: Hashable {
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.baseURL == rhs.baseURL && lhs.projectToken == rhs.projectToken && lhs.authorization == rhs.authorization
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(baseURL)
        hasher.combine(projectToken)
        hasher.combine(authorization)
    }
}

/// Why a ``BenchTarget`` could not be made. Each is a usage error of the command line.
public enum BenchTargetError: Error, Equatable, CustomStringConvertible {
    /// The URL is not `http(s)://host[:port]`.
    case invalidURL(String)
    /// The project token is empty or holds a `/`.
    case invalidProjectToken
    /// The authorization is not `token:KEY`, `bearer:TOKEN` or `basic:KEY_ID:SECRET` (`kind` is what
    /// came before the first `:`, empty when there is none).
    case invalidAuthorization(kind: String)
    /// The authorization names its kind but an empty key, token or key id.
    case emptyCredential(kind: String)
    /// The URL's port is not 1 to 65535.
    case invalidPort(Int)
    /// The host is not loopback and remote targets were not allowed.
    case remoteNotAllowed(host: String)

    public var description: String {
        switch self {
        case .invalidURL(let url):
            "--target must be http://host[:port] or https://host[:port] (no path, query or credentials): '\(url)'"
        case .invalidProjectToken:
            "--project-token must be a non-empty project token without '/'"
        case .invalidAuthorization(let kind):
            "--authorization must be token:KEY, bearer:TOKEN or basic:KEY_ID:SECRET: "
                + (kind.isEmpty ? "it has no ':'" : "'\(kind)' is not one")
        case .emptyCredential(let kind):
            "--authorization \(kind): has an empty \(kind == "token" ? "key" : kind == "bearer" ? "token" : "key id")"
        case .invalidPort(let port):
            "--target port must be 1 to 65535, not \(port)"
        case .remoteNotAllowed(let host):
            "--target \(host) is not a loopback address (127.0.0.0/8, ::1, localhost); a benchmark loads its target "
                + "heavily, so pass --allow-remote to drive a remote server"
        }
    }
}
