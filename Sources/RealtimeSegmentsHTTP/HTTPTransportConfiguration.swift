import Foundation
import RealtimeSegments

/// Settings of ``HTTPSegmentsTransport``.
public struct HTTPTransportConfiguration: Sendable {
    /// The API base URL, for example `https://api.exponea.com` (a trailing `/` is ignored). Set
    /// with ``setBaseURL(_:)``, which validates it.
    public private(set) var baseURL: URL
    /// Deadline of one request, from sending it to the last byte of the response (default 10 s).
    /// One under 1 ns is replaced by the default when the transport is created, with a
    /// `Segments:` warning on its logger.
    public var requestTimeout: Duration = Self.defaultTimeout
    /// Largest response body accepted (default 8 MiB); a larger one is a malformed response. A
    /// negative value is clamped to 0 when the transport is created, with a `Segments:` warning on
    /// its logger (0 refuses every non-empty body).
    public var maxResponseBytes: Int = 8 << 20
    /// Upload events through the batch endpoint (`POST /track/v2/projects/{token}/batch`, one
    /// request per upload). `false` sends one `customers/events` request per event, in order.
    public var useBatchEndpoint: Bool = true
    /// The qualified-segments host (SPEC §9, `POST {host}/v3/graphql`); `nil` (the default) uses
    /// ``baseURL``. Set with ``setQualifiedSegmentsHost(_:)``, which validates it.
    public private(set) var qualifiedSegmentsHost: URL?
    /// Deadline of one qualified-segments request, from sending it to the last byte of the
    /// response (default 10 s, the reference SDK's). A request past it fails with
    /// `fetchSegmentsFailed("network error")`. One under 1 ns is replaced by the default when the
    /// transport is created, with a `Segments:` warning on its logger.
    public var qualifiedSegmentsTimeout: Duration = Self.defaultTimeout

    /// The default of both request timeouts.
    static let defaultTimeout = Duration.seconds(10)

    /// Creates a configuration.
    ///
    /// - Throws: `SegmentsError.invalidArgument(_:)` if `baseURL` is not an `http` or `https` URL
    ///   with a host, has a port outside 1 to 65535, or has a query or fragment (a bad URL is a
    ///   configuration error, not a crash or a wrong request later).
    public init(baseURL: URL) throws(SegmentsError) {
        try Self.validate(baseURL, name: "baseURL")
        self.baseURL = baseURL
    }

    /// Creates a configuration whose qualified segments go to `qualifiedSegmentsHost`.
    ///
    /// - Throws: `SegmentsError.invalidArgument(_:)` if either URL is not an `http` or `https`
    ///   URL with a host, has a port outside 1 to 65535, or has a query or fragment.
    public init(baseURL: URL, qualifiedSegmentsHost: URL?) throws(SegmentsError) {
        try self.init(baseURL: baseURL)
        try setQualifiedSegmentsHost(qualifiedSegmentsHost)
    }

    /// Sends every segments API request to `url` from now on.
    ///
    /// - Throws: `SegmentsError.invalidArgument(_:)` for a URL the initializers refuse (not `http`
    ///   or `https`, no host, a port outside 1 to 65535, a query or fragment); the configuration is
    ///   then unchanged.
    public mutating func setBaseURL(_ url: URL) throws(SegmentsError) {
        try Self.validate(url, name: "baseURL")
        baseURL = url
    }

    /// Sends qualified-segments requests to `host` (`nil`: to ``baseURL``).
    ///
    /// - Throws: `SegmentsError.invalidArgument(_:)` if `host` is not an `http` or `https` URL
    ///   with a host, has a port outside 1 to 65535, or has a query or fragment; the configuration
    ///   is then unchanged. A bad host is a configuration error
    ///   here, never a crash at the first request.
    public mutating func setQualifiedSegmentsHost(_ host: URL?) throws(SegmentsError) {
        if let host { try Self.validate(host, name: "qualifiedSegmentsHost") }
        qualifiedSegmentsHost = host
    }

    private static func validate(_ url: URL, name: String) throws(SegmentsError) {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw .invalidArgument("\(name) must be an http or https URL: \(url.absoluteString)")
        }
        guard let host = url.host, !host.isEmpty else {
            throw .invalidArgument("\(name) has no host: \(url.absoluteString)")
        }
        // Read from the text: a port too large for an integer is no port at all to `URL.port`,
        // and requests would quietly go to the scheme's default port.
        if let port = portText(of: url), !port.isEmpty, !(Int(port).map { (1...65_535).contains($0) } ?? false) {
            throw .invalidArgument("\(name) port must be 1 to 65535: \(url.absoluteString)")
        }
        // Request paths are appended to the URL, so they would land after a query or fragment.
        guard url.query == nil, url.fragment == nil else {
            throw .invalidArgument("\(name) must not have a query or fragment: \(url.absoluteString)")
        }
    }

    /// The port as written in `url`'s authority (after the host, `[v6]` included), if any; empty
    /// for `host:` (the scheme's default port).
    private static func portText(of url: URL) -> Substring? {
        let text = url.absoluteString
        guard let schemeEnd = text.range(of: "://") else { return nil }
        let rest = text[schemeEnd.upperBound...]
        var authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            authority = authority[authority.index(after: close)...]
        }
        guard let colon = authority.lastIndex(of: ":") else { return nil }
        return authority[authority.index(after: colon)...]
    }

    /// Creates a configuration from a string URL.
    ///
    /// - Throws: `SegmentsError.invalidArgument(_:)` for a string that is not such a URL.
    public init(baseURL string: String) throws(SegmentsError) {
        guard let url = URL(string: string) else { throw .invalidArgument("baseURL is not a URL: \(string)") }
        try self.init(baseURL: url)
    }

    /// The base URL as a string without a trailing slash.
    var base: String { Self.trimmed(baseURL) }

    /// The qualified-segments host as a string without a trailing slash.
    var qualifiedSegmentsBase: String { Self.trimmed(qualifiedSegmentsHost ?? baseURL) }

    private static func trimmed(_ url: URL) -> String {
        var text = url.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }
}
