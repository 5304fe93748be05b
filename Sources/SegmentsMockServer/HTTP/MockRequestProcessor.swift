import Foundation
import NIOHTTP1
import RealtimeSegments

/// Turns one complete HTTP request into a ``MockHTTPReply``: routing, request counting, fault
/// decision, project and credential checks, body decoding and the model update.
///
/// Order: unknown route → 404; wrong method → 405 (neither is counted nor draws a fault); then the
/// request is counted on its endpoint and its fault drawn; a fault other than latency replaces the
/// normal handling (so a failed request never changes the model); else unknown project → 404,
/// bad credentials → 401, malformed body → 400, and finally the model update and 200.
///
/// Threading: `Sendable`; called on the server's event loops. Model calls are short and take the
/// backend's lock.
struct MockRequestProcessor: Sendable {
    /// A complete request as the handler collected it.
    struct Request: Sendable {
        var method: HTTPMethod
        var uri: String
        var authorization: String?
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

    /// The normal handling of a request that passed the faults.
    private func handle(_ route: MockRoute, _ request: Request) -> MockHTTPReply.Response {
        guard let project = backend.project(token: route.projectToken) else {
            return .error(404, "unknown project token")
        }
        guard project.accepts(headerValue: request.authorization) else {
            return .error(401, "missing or invalid authorization")
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
                let event = try WireRequestDecoder.event(request.body)
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
                let commands = try WireRequestDecoder.batch(request.body)
                try RequestValidation.validate(commands)
                guard backend.apply(commands, projectToken: token) else {
                    return .error(404, "unknown project token")
                }
                return .init(status: 200, body: WireResponseBodies.batchResults(count: commands.count))
            }
        } catch {
            return .error(400, error.reason)
        }
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
        }
    }
}
