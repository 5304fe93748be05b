import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import RealtimeSegments

/// The engine's transport over HTTP/1.1, speaking the segments API (SPEC §7) with AsyncHTTPClient
/// (connection pooling, keep-alive, a deadline per request).
///
/// ```swift
/// let transport = HTTPSegmentsTransport(configuration: try .init(baseURL: "https://api.example.com"))
/// let client = SegmentsClient(configuration: .init(projectToken: "token", authorization: .token("key"), transport: transport))
/// ```
///
/// Errors (all `SegmentsError`): 401/403 → `unauthorized`, 404 → `notFound`, 408 → `requestTimeout`,
/// 429 → `rateLimited`, 5xx → `serverError` (both with the `Retry-After` header, if sent), other
/// non-2xx → `unexpectedStatus`, whether or not its body arrives whole; a deadline → `timeout`; no
/// connection or a reset before the response → `connectionFailed`; a 2xx body that is cut short,
/// too large or not of the documented shape → `malformedResponse`, a 2xx body still arriving at the
/// deadline → `timeout`; credentials holding a control character, or a project token that names
/// no path segment, → `invalidCredentials`, nothing sent; a cancelled calling task → `cancelled`.
/// An upload or link counts as delivered only if its 2xx body says so (`{"success": true}`, one
/// result per command from `batch`); a link also when the body is empty (a 204). Commands the server refused
/// (`"success": false`, or in per-event mode a 4xx answer to one event) are reported as
/// `SegmentsError.partialUpload(answered:refused:then:)`, and so is a per-event upload that failed
/// after some events were answered, so the engine neither sends an answered event again nor drops
/// one: it sets refused ones aside and retries the rest. The transport itself does not retry.
///
/// It also answers qualified segments (SPEC §9, `QualifiedSegmentsTransport`): see
/// `HTTPSegmentsTransport+Qualified.swift`.
///
/// Threading: every method may be called concurrently from any task.
public final class HTTPSegmentsTransport: SegmentsTransport {
    /// The settings this transport was created with.
    public let configuration: HTTPTransportConfiguration
    let httpClient: HTTPClient
    let logger: Logger

    /// The client a transport uses unless given one: process-wide, never shut down, with
    /// AsyncHTTPClient's shared settings except that it does not follow redirects, and inflates
    /// answers a server compressed with gzip or deflate anyway (up to 64 MiB each; the
    /// transport's ``HTTPTransportConfiguration/maxResponseBytes`` still applies to what comes out).
    ///
    /// `HTTPClient.shared` follows them as a browser does: on 301, 302 and 303 it sends a POST again
    /// as a GET without its body, so a redirected upload reaches the server as something else,
    /// and whatever that answers is taken for the upload's answer.
    public static let sharedClient: HTTPClient = {
        var configuration = HTTPClient.Configuration.singletonConfiguration
        configuration.redirectConfiguration = .disallow
        // Requests ask for answers uncompressed, but a proxy may compress them anyway: an upload
        // the server stored, answered in gzip and taken for a malformed answer, would be sent
        // again after every backoff. Limited by size: a ratio limit fails a well-compressed batch
        // answer.
        configuration.decompression = .enabled(limit: .size(64 << 20))
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    /// Creates a transport on `httpClient` (default: ``sharedClient``, which needs no shutdown). A
    /// client you pass in stays yours to shut down.
    ///
    /// A client you pass in should not follow redirects (`redirectConfiguration = .disallow`):
    /// AsyncHTTPClient strips only `authorization` and cookies when it follows one to another host,
    /// so the qualified segments' `x-api-key`, and on 307 or 308 an upload's body, would reach the
    /// address the redirect names before the transport sees it. It should inflate answers
    /// (`decompression = .enabled(limit: .size(…))`): one compressed anyway that it does not
    /// inflate fails as a malformed response naming its encoding.
    ///
    /// A redirect is never taken for an answer: the default client does not follow one, and when a
    /// client passed in did, the answer is reported as the redirect's status
    /// (`SegmentsError.unexpectedStatus`, a 3xx, with a `Segments:` error line naming where it
    /// pointed). Set ``HTTPTransportConfiguration/baseURL`` to that address instead.
    ///
    /// A negative ``HTTPTransportConfiguration/maxResponseBytes`` is clamped to 0 (every non-empty
    /// body is then refused as too large) with a `Segments:` warning on `logger`; it never reaches
    /// NIO, whose body reader traps on a negative limit. A request timeout under 1 ns (either of
    /// them), which would time out every request at once (NIO's deadlines are whole nanoseconds),
    /// is replaced by the default, also with a warning. ``configuration`` holds the values used.
    public init(
        configuration: HTTPTransportConfiguration,
        httpClient: HTTPClient = HTTPSegmentsTransport.sharedClient,
        logger: Logger = Logger(label: "RealtimeSegments.HTTP")
    ) {
        var configuration = configuration
        if configuration.maxResponseBytes < 0 {
            logger.warning(
                "Segments: HTTPTransportConfiguration.maxResponseBytes is \(configuration.maxResponseBytes), below 0; using 0, so every non-empty response body is refused")
            configuration.maxResponseBytes = 0
        }
        let defaults = HTTPTransportConfiguration.defaultTimeout
        if configuration.requestTimeout < .nanoseconds(1) {
            logger.warning(
                "Segments: HTTPTransportConfiguration.requestTimeout is \(configuration.requestTimeout), under 1 ns; using \(defaults)")
            configuration.requestTimeout = defaults
        }
        if configuration.qualifiedSegmentsTimeout < .nanoseconds(1) {
            logger.warning(
                "Segments: HTTPTransportConfiguration.qualifiedSegmentsTimeout is \(configuration.qualifiedSegmentsTimeout), under 1 ns; using \(defaults)")
            configuration.qualifiedSegmentsTimeout = defaults
        }
        self.configuration = configuration
        self.httpClient = httpClient
        self.logger = logger
    }

    // MARK: SegmentsTransport

    public func trackEvents(_ events: [TrackedEvent], context: SegmentsRequestContext) async throws(SegmentsError) {
        guard !events.isEmpty else { return }
        let project = "/track/v2/projects/\(try Self.projectSegment(context))"
        if configuration.useBatchEndpoint {
            let path = project + "/batch"
            let answer = try await send(.POST, path, body: BatchBody(events: events), context: context)
            let refusals = try UploadAnswer.batch(Array(answer.readableBytesView), commands: events.count, endpoint: "POST \(Self.loggable(path))")
            if !refusals.isEmpty {
                throw .partialUpload(answered: events.count, refused: refusals, then: nil)
            }
        } else {
            // One request per event: each answer is about that event alone, so a 4xx refuses it
            // and the next goes on; any other failure stops here, reporting what was answered.
            let path = project + "/customers/events"
            var refusals: [CommandRefusal] = []
            for (index, event) in events.enumerated() {
                do throws(SegmentsError) {
                    let answer = try await send(.POST, path, body: event, context: context)
                    if let refusal = try UploadAnswer.command(Array(answer.readableBytesView), endpoint: "POST \(Self.loggable(path))") {
                        refusals.append(.init(index: index, reason: refusal.reason))
                    }
                } catch {
                    if case .unexpectedStatus(let status) = error, (400..<500).contains(status) {
                        refusals.append(.init(index: index, reason: error.description))
                        continue
                    }
                    guard index > 0 || !refusals.isEmpty else { throw error }
                    throw .partialUpload(answered: index, refused: refusals, then: error)
                }
            }
            if !refusals.isEmpty {
                throw .partialUpload(answered: events.count, refused: refusals, then: nil)
            }
        }
    }

    public func identifyCustomer(_ update: CustomerUpdate, context: SegmentsRequestContext) async throws(SegmentsError) {
        let path = "/track/v2/projects/\(try Self.projectSegment(context))/customers"
        let answer = try await send(.POST, path, body: update, context: context)
        if let refusal = try UploadAnswer.command(Array(answer.readableBytesView), endpoint: "POST \(Self.loggable(path))") {
            throw .partialUpload(answered: 1, refused: [refusal], then: nil)
        }
    }

    public func linkCustomerIds(cookie: String, externalIds: [String: String], context: SegmentsRequestContext)
        async throws(SegmentsError)
    {
        let path = "/webxp/projects/\(try Self.projectSegment(context))/cookies/\(Self.pathComponent(cookie))/link-ids"
        let answer = try await send(.POST, path, body: LinkIdsBody(externalIds: externalIds), context: context)
        try UploadAnswer.link(Array(answer.readableBytesView), endpoint: "POST \(Self.loggable(path))")
    }

    /// `true`: every call suspends on AsyncHTTPClient, and no lock is held across a wait.
    public var neverBlocks: Bool { true }

    public func fetchSegments(cookie: String, context: SegmentsRequestContext) async throws(SegmentsError)
        -> SegmentsResponse
    {
        let path = "/webxp/projects/\(try Self.projectSegment(context))/segments?cookie=\(Self.queryValue(cookie))"
        let body = try await send(.GET, path, body: Optional<LinkIdsBody>.none, context: context)
        return try SegmentsResponseDecoder.decode(Array(body.readableBytesView))
    }

    // MARK: Requests

    /// Sends one request and returns the body of a 2xx response.
    private func send(
        _ method: HTTPMethod, _ path: String, body: (some Encodable)?, context: SegmentsRequestContext
    ) async throws(SegmentsError) -> ByteBuffer {
        var request = HTTPClientRequest(url: configuration.base + path)
        request.method = method
        request.headers.add(name: "accept", value: "application/json")
        request.headers.add(name: "accept-encoding", value: "identity")
        if let authorization = context.authorization {
            let value = authorization.headerValue
            guard !Self.holdsControlCharacter(value) else {
                let error = SegmentsError.invalidCredentials("the authorization holds a control character (a line break read with the key?)")
                logger.error("Segments: HTTP \(method) \(Self.loggable(path)) not sent: \(error)")
                throw error
            }
            request.headers.add(name: "authorization", value: value)
        }
        if let body {
            let data: Data
            let replacedPaths: [String]
            do {
                (data, replacedPaths) = try NonFiniteNumbers.encode(body)
            } catch {
                throw .invalidArgument("request body cannot be encoded: \(error)")
            }
            if !replacedPaths.isEmpty {
                logger.error(
                    "Segments: \(method) \(Self.loggable(path)) carries numbers JSON cannot carry, sent as null: \(replacedPaths.joined(separator: ", "))")
            }
            request.headers.add(name: "content-type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: data))
        }
        let deadline = NIODeadline.now() + TimeAmount(configuration.requestTimeout)

        let exchange: (status: Int, retryAfter: String?, body: ByteBuffer)
        do throws(ExchangeFailure) {
            exchange = try await perform(request, deadline: deadline)
        } catch {
            if error.isCancellation { throw .cancelled }
            switch error {
            case .request(let failure):
                let mapped = HTTPStatusMapping.error(forRequestFailure: failure)
                logger.debug("Segments: HTTP \(method) \(Self.loggable(path)) failed: \(mapped)")
                throw mapped
            case .body(let failure, let status, let retryAfter):
                // The status decides first: a 401 or 503 whose body is cut short is still that
                // status; only a 2xx response is judged by what happened to its body.
                let mapped = HTTPStatusMapping.error(forStatus: status, retryAfter: HTTPStatusMapping.retryAfter(retryAfter))
                    ?? HTTPStatusMapping.error(forBodyFailure: failure)
                logger.debug("Segments: HTTP \(method) \(Self.loggable(path)) → \(status), body failed: \(failure)")
                throw mapped
            }
        }
        if let error = HTTPStatusMapping.error(
            forStatus: exchange.status, retryAfter: HTTPStatusMapping.retryAfter(exchange.retryAfter))
        {
            logger.debug("Segments: HTTP \(method) \(Self.loggable(path)) → \(exchange.status)")
            throw error
        }
        return exchange.body
    }

    /// Where ``perform(_:deadline:)`` failed, with the underlying error; each caller maps it to
    /// its own `SegmentsError`.
    enum ExchangeFailure: Error {
        /// No response head arrived: no connection, a connection lost before the response, the deadline.
        case request(any Error)
        /// The head arrived with `status`, but the body could not be read in full (cut short, the
        /// deadline, or more than ``HTTPTransportConfiguration/maxResponseBytes``).
        case body(any Error, status: Int, retryAfter: String?)

        /// The calling task was cancelled, which is what ended the exchange.
        var isCancellation: Bool {
            switch self {
            case .request(let error), .body(let error, _, _): error is CancellationError || Task.isCancelled
            }
        }
    }

    /// Executes `request` on the pooled client and reads its whole body, whatever the status (a
    /// response read to its end keeps the connection reusable), all before `deadline`.
    func perform(_ request: HTTPClientRequest, deadline: NIODeadline) async throws(ExchangeFailure)
        -> (status: Int, retryAfter: String?, body: ByteBuffer)
    {
        let response: HTTPClientResponse
        do {
            response = try await httpClient.execute(request, deadline: deadline, logger: logger)
        } catch {
            throw .request(error)
        }
        var status = Int(response.status.code)
        let retryAfter = response.headers.first(name: "retry-after")
        if (300..<400).contains(status) {
            logRedirect(of: request, status: status, to: response.headers.first(name: "location"))
        } else if response.history.count > 1, let redirect = response.history.first?.responseHead {
            // A client that follows redirects did: this answer is to another request than `request`.
            status = Int(redirect.status.code)
            logRedirect(of: request, status: status, to: redirect.headers.first(name: "location"))
        }
        let body: ByteBuffer
        do {
            body = try await Self.collect(response.body, upTo: configuration.maxResponseBytes, before: deadline)
        } catch {
            throw .body(error, status: status, retryAfter: retryAfter)
        }
        if let encoding = response.headers.first(name: "content-encoding"), Self.isStillEncoded(body, by: encoding) {
            throw .body(UnreadableEncoding(encoding: encoding), status: status, retryAfter: retryAfter)
        }
        return (status, retryAfter, body)
    }

    /// A body in a `content-encoding` nothing on the way decoded (one AsyncHTTPClient does not
    /// inflate, or a client passed in that inflates nothing).
    struct UnreadableEncoding: Error {
        var encoding: String
    }

    /// `true` if `body`, answered with `content-encoding: encoding`, is not text a JSON reader
    /// can start on: its first byte other than white space opens no JSON value. (The header stays
    /// when a client inflated the body.)
    static func isStillEncoded(_ body: ByteBuffer, by encoding: String) -> Bool {
        let name = encoding.trimmingCharacters(in: .whitespaces).lowercased()
        guard !name.isEmpty, name != "identity" else { return false }
        guard let first = body.readableBytesView.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) else { return false }
        // { [ " - 0-9 t f n
        return !([0x7B, 0x5B, 0x22, 0x2D, 0x74, 0x66, 0x6E] as [UInt8]).contains(first) && !(0x30...0x39).contains(first)
    }

    /// `path` (or a URL) as log lines and error texts give it: without the parts that name the
    /// customer, its query (`?cookie=`) and the cookie in a link-ids path (`/cookies/{cookie}/`).
    static func loggable(_ path: String) -> String {
        var parts = path.prefix { $0 != "?" }.split(separator: "/", omittingEmptySubsequences: false)
        for index in parts.indices.dropLast() where parts[index] == "cookies" {
            parts[index + 1] = "{cookie}"
        }
        return parts.joined(separator: "/")
    }

    /// `true` if `value` holds a character no header value may (C0 controls but tab, and DEL):
    /// AsyncHTTPClient would refuse the request as if the network had failed.
    static func holdsControlCharacter(_ value: String) -> Bool {
        value.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }
    }

    private func logRedirect(of request: HTTPClientRequest, status: Int, to location: String?) {
        let url = Self.loggable(request.url)
        logger.error(
            "Segments: \(request.method) \(url) was redirected (HTTP \(status)) to \(location.map(Self.loggableLocation) ?? "an address it did not give"); requests are not sent on to another address: configure the address it points to instead")
    }

    /// A redirect's `location` as the log gives it: without the customer, as ``loggable(_:)``
    /// gives a path (a redirect that keeps path and query names the cookie), on one line, and at
    /// most 200 characters.
    static func loggableLocation(_ location: String) -> String {
        let text = loggable(location).escapingControlCharacters
        return text.count <= 200 ? text : text.prefix(200) + "… (\(text.count) characters)"
    }

    /// Reads `body` whole, at most `maxBytes` of it, before `deadline`.
    ///
    /// AsyncHTTPClient's deadline ends when the response head arrives; without this a body that
    /// stalls after its head would wait for the client's read timeout (90 s on the shared client).
    /// At the deadline the read is cancelled (AsyncHTTPClient then closes the connection) and this
    /// throws `HTTPClientError.deadlineExceeded`; otherwise it throws what the read threw.
    static func collect(_ body: HTTPClientResponse.Body, upTo maxBytes: Int, before deadline: NIODeadline)
        async throws -> ByteBuffer
    {
        try await withThrowingTaskGroup(of: ByteBuffer?.self) { group in
            group.addTask { try await body.collect(upTo: maxBytes) }
            group.addTask {
                let remaining = deadline - NIODeadline.now()
                try await Task.sleep(nanoseconds: UInt64(max(0, remaining.nanoseconds)))
                return nil
            }
            defer { group.cancelAll() }
            // The first child to finish decides: the body, the read's error, or the deadline (nil).
            guard let first = try await group.next(), let buffer = first else {
                throw HTTPClientError.deadlineExceeded
            }
            return buffer
        }
    }

    private static let pathAllowed: CharacterSet = {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/?#")
        return allowed
    }()

    private static let queryAllowed: CharacterSet = {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&=+#")
        return allowed
    }()

    /// The project token as a path segment. One that names none (empty, `.` or `..`, which a
    /// proxy's path normalization removes, sending the request to another resource) is a
    /// configuration error: ``SegmentsError/invalidCredentials(_:)``, so nothing is sent and the
    /// engine keeps the events.
    static func projectSegment(_ context: SegmentsRequestContext) throws(SegmentsError) -> String {
        guard !["", ".", ".."].contains(context.projectToken) else {
            throw .invalidCredentials("the project token \"\(context.projectToken)\" names no project")
        }
        return pathComponent(context.projectToken)
    }

    static func pathComponent(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: pathAllowed) ?? value
    }

    static func queryValue(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: queryAllowed) ?? value
    }
}

extension TimeAmount {
    /// `duration` in nanoseconds, clamped to what a `TimeAmount` holds.
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let (total, carry) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
        self = .nanoseconds(overflow || carry ? (seconds < 0 ? .min : .max) : total)
    }
}
