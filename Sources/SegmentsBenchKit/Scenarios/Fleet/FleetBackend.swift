import Foundation
import RealtimeSegments
import RealtimeSegmentsHTTP
import SegmentsMockServer

/// The server side of a fleet run and the one transport every device shares: the in-process mock
/// backend, reached directly (`memory`) or through one loopback HTTP server and one
/// `HTTPSegmentsTransport` on the process-wide `HTTPClient` (`http`), or a ``BenchTarget`` over
/// one `HTTPSegmentsTransport`. The one place a fleet's transport is chosen.
struct FleetBackend: Sendable {
    /// The mock backend: the harness scripts changes on it and counts what reached it. `nil`
    /// against a target.
    let backend: SegmentsBackend?
    /// The loopback server (`http` only).
    let server: SegmentsMockHTTPServer?
    /// The transport the devices' ``FleetDeviceTransport``s wrap.
    let transport: any SegmentsTransport
    /// The server driven instead of the mock, if any.
    let target: BenchTarget?

    /// Thousands of devices share the client's connection pool: a request may queue.
    static let requestTimeout = Duration.seconds(30)

    /// Starts the mock backend (and the server for `http`), whose segments fetches answer after
    /// `fetchDelay` (so that customer switches overlap fetches in flight); or, with a `target`,
    /// connects to it instead (`kind` and `fetchDelay` then play no part). Call from a plain
    /// thread: it blocks.
    static func make(_ kind: BenchOptions.Transport, target: BenchTarget?, fetchDelay: Duration) throws -> FleetBackend {
        if let target {
            return FleetBackend(backend: nil, server: nil, transport: target.makeTransport(requestTimeout: requestTimeout), target: target)
        }
        let backend = SegmentsBackend(projects: [EngineUnderTest.project])
        let faults =
            fetchDelay > .zero ? FaultPlan(profiles: [.fetchSegments: FaultProfile(latency: .fixed(fetchDelay))]) : .none
        switch kind {
        case .memory:
            return FleetBackend(
                backend: backend, server: nil, transport: MockSegmentsTransport(backend: backend, faults: faults), target: nil)
        case .http:
            let server = SegmentsMockHTTPServer(backend: backend, faults: faults)
            try runBlocking { try await server.start() }
            var configuration = try HTTPTransportConfiguration(baseURL: server.baseURL)
            configuration.requestTimeout = requestTimeout
            return FleetBackend(
                backend: backend, server: server, transport: HTTPSegmentsTransport(configuration: configuration), target: nil)
        }
    }

    /// A device's client configuration over `transport` (its wrapper of ``transport``): the
    /// mock's project, or the target's project and authorization.
    func configuration(transport: any SegmentsTransport) -> SegmentsConfiguration {
        if let target { return target.configuration(transport: transport) }
        return SegmentsConfiguration(
            projectToken: EngineUnderTest.project.token, authorization: .token(EngineUnderTest.project.apiKey), transport: transport)
    }

    /// Makes the customer of `cookie` have exactly `segments` in `category` on the mock now; does
    /// nothing against a target (its segments are its own).
    func script(_ segments: [Segment], category: SegmentCategory, cookie: String) {
        backend?.setSegments(segments, category: category, forCookie: cookie, projectToken: EngineUnderTest.project.token)
    }

    /// Events the mock stored; `nil` against a target.
    var eventsAccepted: Int? { backend?.eventsAccepted }

    /// Stops the server.
    func shutdown() {
        if let server { try? runBlocking { try await server.stop() } }
    }
}
