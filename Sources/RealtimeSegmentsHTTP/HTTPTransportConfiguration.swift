import Foundation
import RealtimeSegments

/// Settings of ``HTTPSegmentsTransport``.
public struct HTTPTransportConfiguration: Sendable {
    /// The API base URL, for example `https://api.exponea.com` (a trailing `/` is ignored).
    public var baseURL: URL
    /// Deadline of one request, from sending it to the last byte of the response (default 10 s).
    public var requestTimeout: Duration = .seconds(10)
    /// Largest response body accepted (default 8 MiB); a larger one is a malformed response.
    public var maxResponseBytes: Int = 8 << 20
    /// Upload events through the batch endpoint (`POST /track/v2/projects/{token}/batch`, one
    /// request per upload). `false` sends one `customers/events` request per event, in order.
    public var useBatchEndpoint: Bool = true

    /// Creates a configuration.
    ///
    /// - Throws: ``SegmentsError/invalidArgument(_:)`` if `baseURL` is not an `http` or `https` URL
    ///   with a host (a bad host is a configuration error, not a crash at the first request).
    public init(baseURL: URL) throws(SegmentsError) {
        guard let scheme = baseURL.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw .invalidArgument("baseURL must be an http or https URL: \(baseURL.absoluteString)")
        }
        guard let host = baseURL.host, !host.isEmpty else {
            throw .invalidArgument("baseURL has no host: \(baseURL.absoluteString)")
        }
        self.baseURL = baseURL
    }

    /// Creates a configuration from a string URL.
    ///
    /// - Throws: ``SegmentsError/invalidArgument(_:)`` for a string that is not such a URL.
    public init(baseURL string: String) throws(SegmentsError) {
        guard let url = URL(string: string) else { throw .invalidArgument("baseURL is not a URL: \(string)") }
        try self.init(baseURL: url)
    }

    /// The base URL as a string without a trailing slash.
    var base: String {
        var text = baseURL.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }
}
