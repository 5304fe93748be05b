import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import RealtimeSegments

extension HTTPSegmentsTransport: QualifiedSegmentsTransport {
    /// Asks the qualified-segments endpoint (SPEC §9): `POST {host}/v3/graphql` with `x-api-key`,
    /// `content-type: application/json` and the body of `QualifiedSegmentsWire.requestBody(for:)`,
    /// where host is ``HTTPTransportConfiguration/qualifiedSegmentsHost`` (default the base URL).
    ///
    /// The request goes through the transport's pooled `HTTPClient`, so sequential fetches reuse a
    /// keep-alive connection instead of paying connection setup each time. The whole request
    /// has one deadline, ``HTTPTransportConfiguration/qualifiedSegmentsTimeout``.
    ///
    /// Errors: a cancelled calling task → `SegmentsError.cancelled`; an API key no header can carry (a control character) →
    /// `SegmentsError.invalidCredentials`, nothing sent; no connection, a connection lost before the response, or the deadline →
    /// `fetchSegmentsFailed("network error")`; everything else as
    /// `QualifiedSegmentsWire.decodeResponse(status:body:)` maps it (`"<status>"` for any non-2xx
    /// status, even when its body is cut short; `"decode error"`; the error's classification or
    /// message; `SegmentsError.invalidSegmentIdentifier`).
    ///
    /// Threading: may be called concurrently from any task.
    public func fetchQualifiedSegments(_ query: QualifiedSegmentsQuery, apiKey: String) async throws(SegmentsError)
        -> [String]
    {
        let url = configuration.qualifiedSegmentsBase + QualifiedSegmentsWire.path
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        guard !Self.holdsControlCharacter(apiKey) else {
            let error = SegmentsError.invalidCredentials("the api key holds a control character (a line break read with the key?)")
            logger.error("Segments: HTTP POST \(url) not sent: \(error)")
            throw error
        }
        request.headers.add(name: "accept-encoding", value: "identity")
        request.headers.add(name: "x-api-key", value: apiKey)
        request.headers.add(name: "content-type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: QualifiedSegmentsWire.requestBody(for: query)))
        let deadline = NIODeadline.now() + TimeAmount(configuration.qualifiedSegmentsTimeout)

        let exchange: (status: Int, retryAfter: String?, body: ByteBuffer)
        do throws(ExchangeFailure) {
            exchange = try await perform(request, deadline: deadline)
        } catch {
            if error.isCancellation { throw .cancelled }
            switch error {
            case .request(let failure):
                logger.debug("Segments: HTTP POST \(url) failed: \(failure)")
                throw .fetchSegmentsFailed("network error")
            case .body(let failure, let status, _):
                logger.debug("Segments: HTTP POST \(url) body failed: \(failure)")
                // Any non-2xx status fails with the status, as a whole body would (SPEC §9).
                if !(200..<300).contains(status) { throw .fetchSegmentsFailed(String(status)) }
                // A body too large to accept, or in an encoding nothing decoded, is not of the
                // documented shape; any other failure means the response never fully arrived.
                throw .fetchSegmentsFailed(
                    failure is NIOTooManyBytesError || failure is UnreadableEncoding ? "decode error" : "network error")
            }
        }
        return try QualifiedSegmentsWire.decodeResponse(
            status: exchange.status, body: Array(exchange.body.readableBytesView))
    }
}
