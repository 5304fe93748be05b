import Foundation
import NIOHTTP1
import RealtimeSegments

/// Turns one complete HTTP request into a ``MockHTTPReply``: routing, request counting, fault
/// decision, project and credential checks, body decoding and the model update.
///
/// Order: unknown route → 404; wrong method → 405 (neither is counted nor draws a fault); then the
/// request is counted on its endpoint and its fault drawn; a fault other than latency replaces the
/// normal handling (so a failed request never changes the model); else unknown project → 404,
/// missing, malformed or wrong credentials → 401, malformed body → 400, and finally the model
/// update and 200. A batch whose envelope is well-formed answers 200 with one result per command:
/// an unknown or invalid command fails alone (see ``batchReply(_:projectToken:)``).
///
/// `POST /v3/graphql` names no project: after the fault, an `x-api-key` that no project has → 403,
/// a `content-type` other than `application/json` → 415, a body that is not JSON or lacks a string
/// `query` → 400; then the query runs (asynchronously, see ``MockHTTPReply/Action/respondLater(_:)``)
/// and is answered 200 with the GraphQL result, errors included.
///
/// Threading: `Sendable`; called on the server's event loops. Model calls are short and take the
/// backend's lock.
struct MockRequestProcessor: Sendable {
    /// A complete request as the handler collected it.
    struct Request: Sendable {
        var method: HTTPMethod
        var uri: String
        var authorization: String?
        /// The `x-api-key` header (qualified segments).
        var apiKey: String?
        /// The `content-type` header.
        var contentType: String?
        var body: Data
    }

    let backend: SegmentsBackend
    let injector: FaultInjector

    func reply(to request: Request) -> MockHTTPReply {
        guard let route = MockRoute(uri: request.uri) else {
            return .respond(.error(404, "no route for \(request.method.rawValue) \(request.uri)"))
        }
        guard request.method == route.method else {
            var response = MockHTTPReply.Response.error(405, "\(request.method.rawValue) is not allowed here")
            response.headers = [("allow", route.method.rawValue)]
            return .respond(response)
        }
        backend.recordRequest(route.endpoint)
        let decision = injector.decide(route.endpoint)
        let action: MockHTTPReply.Action
        switch decision.outcome {
        case .pass where route == .qualifiedSegments:
            action = qualifiedSegmentsAction(request)
        case .pass:
            action = .respond(handle(route, request))
        case .error(let status):
            action = .respond(.error(status, "mock fault: injected HTTP \(status)"))
        case .hang(let limit):
            action = .hang(limit: limit)
        case .malformed(let variant):
            action = .respond(
                .init(status: 200, body: WireResponseBodies.malformed(for: route.endpoint, variant: variant)))
        case .truncated:
            action = .truncate(.init(status: 200, body: successBody(for: route)))
        case .reset:
            action = .reset
        }
        return MockHTTPReply(action: action, delay: decision.delay)
    }

    /// The normal handling of a qualified-segments request that passed the faults.
    private func qualifiedSegmentsAction(_ request: Request) -> MockHTTPReply.Action {
        guard let apiKey = request.apiKey, let project = backend.project(apiKey: apiKey) else {
            return .respond(.error(403, "missing or invalid x-api-key"))
        }
        let mediaType = request.contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces)
        guard mediaType?.lowercased() == "application/json" else {
            return .respond(.error(415, "content-type must be application/json"))
        }
        let body: GraphQLRequestBody
        do {
            body = try GraphQLRequestBody.decode(request.body)
        } catch {
            return .respond(.error(400, error.reason))
        }
        let executor = QualifiedSegmentsExecutor(backend: backend)
        return .respondLater {
            let result = await executor.execute(body, projectToken: project.token)
            return .init(status: 200, body: GraphQLResponseBody.data(result))
        }
    }

    /// The normal handling of a request that passed the faults.
    private func handle(_ route: MockRoute, _ request: Request) -> MockHTTPReply.Response {
        guard let token = route.projectToken, let project = backend.project(token: token) else {
            return .error(404, "unknown project token")
        }
        do {
            let credentials = try AuthorizationHeader.parse(request.authorization)
            guard project.accepts(credentials) else {
                switch credentials {
                case .key: return .error(401, "invalid API key")
                case .basic: return .error(401, "invalid API key id or secret")
                }
            }
        } catch {
            return .error(401, error.reason)
        }
        do {
            switch route {
            case .fetchSegments(let token, let cookie):
                guard let cookie, !cookie.isEmpty else { return .error(400, "missing \"cookie\" query parameter") }
                guard let response = backend.segments(forCookie: cookie, projectToken: token) else {
                    return .error(404, "unknown project token")
                }
                return .init(status: 200, body: WireResponseBodies.segments(response))
            case .linkIds(let token, let cookie):
                let ids = try WireRequestDecoder.externalIds(request.body)
                try RequestValidation.validate(cookie: cookie, externalIds: ids)
                guard backend.linkIds(cookie: cookie, externalIds: ids, projectToken: token) else {
                    return .error(404, "unknown project token")
                }
                return .init(status: 200, body: WireResponseBodies.empty)
            case .trackEvent(let token):
                let event = try WireRequestDecoder.event(request.body, now: backend.currentTime)
                try RequestValidation.validate(event)
                guard backend.apply([.event(event)], projectToken: token) else {
                    return .error(404, "unknown project token")
                }
                return .init(status: 200, body: WireResponseBodies.success)
            case .trackCustomer(let token):
                let update = try WireRequestDecoder.customerUpdate(request.body)
                try RequestValidation.validate(update)
                guard backend.apply([.customer(update)], projectToken: token) else {
                    return .error(404, "unknown project token")
                }
                return .init(status: 200, body: WireResponseBodies.success)
            case .trackBatch(let token):
                return try batchReply(request.body, projectToken: token)
            case .systemTime:
                return .init(status: 200, body: WireResponseBodies.systemTime(backend.currentTime))
            case .qualifiedSegments:
                // reply(to:) sends every qualified-segments request that passed the faults to
                // qualifiedSegmentsAction(_:), never here (and the route has no project token, so
                // the guard above would have answered first anyway).
                preconditionFailure("qualified-segments requests are handled by qualifiedSegmentsAction(_:)")
            }
        } catch {
            return .error(400, error.reason)
        }
    }

    /// A batch: each command is checked on its own; the valid ones are applied in order as one
    /// model step, and each command gets its result (`system/time` the server's time, an invalid
    /// one `"success": false` with its reason). Throws only for an envelope that is not
    /// `{"commands": [...]}` (400).
    private func batchReply(_ body: Data, projectToken: String) throws(RequestValidation.Rejection)
        -> MockHTTPReply.Response
    {
        let now = backend.currentTime
        let commands = try WireRequestDecoder.batch(body, now: now)
        var accepted: [TrackingCommand] = []
        accepted.reserveCapacity(commands.count)
        var results: [BatchResult] = []
        results.reserveCapacity(commands.count)
        for command in commands {
            switch command {
            case .track(let tracking):
                do {
                    try RequestValidation.validate(tracking)
                    accepted.append(tracking)
                    results.append(.accepted)
                } catch {
                    results.append(.refused(error.reason))
                }
            case .systemTime:
                results.append(.time(now))
            case .invalid(let reason):
                results.append(.refused(reason))
            }
        }
        guard backend.apply(accepted, projectToken: projectToken) else {
            return .error(404, "unknown project token")
        }
        return .init(status: 200, body: WireResponseBodies.batch(results))
    }

    /// The body a successful answer would have had, without changing the model: what a truncated
    /// answer cuts in half.
    private func successBody(for route: MockRoute) -> Data {
        switch route {
        case .fetchSegments(let token, let cookie):
            backend.segments(forCookie: cookie ?? "", projectToken: token).map(WireResponseBodies.segments)
                ?? WireResponseBodies.empty
        case .linkIds: WireResponseBodies.empty
        case .trackEvent, .trackCustomer: WireResponseBodies.success
        case .trackBatch: WireResponseBodies.batchResults(count: 1)
        case .systemTime: WireResponseBodies.systemTime(backend.currentTime)
        case .qualifiedSegments: WireResponseBodies.emptyQualifiedSegments
        }
    }
}
