import Foundation
import RealtimeSegments
import RealtimeSegmentsHTTP
import SegmentsMockServer

/// The server side of a fleet run and the one transport every device shares: the in-process mock
/// backend, reached directly (`memory`) or through one loopback HTTP server and one
/// `HTTPSegmentsTransport` on the process-wide `HTTPClient` (`http`). The one place a fleet's
/// transport is chosen.
struct FleetBackend: Sendable {
    /// The mock backend: the harness scripts changes on it and counts what reached it.
    let backend: SegmentsBackend
    /// The loopback server (`http` only).
    let server: SegmentsMockHTTPServer?
    /// The transport the devices' ``FleetDeviceTransport``s wrap.
    let transport: any SegmentsTransport

    /// Starts the backend (and the server for `http`). Call from a plain thread: it blocks.
    static func make(_ kind: BenchOptions.Transport) throws -> FleetBackend {
        let backend = SegmentsBackend(projects: [EngineUnderTest.project])
        switch kind {
        case .memory:
            return FleetBackend(backend: backend, server: nil, transport: MockSegmentsTransport(backend: backend))
        case .http:
            let server = SegmentsMockHTTPServer(backend: backend)
            try runBlocking { try await server.start() }
            var configuration = try HTTPTransportConfiguration(baseURL: server.baseURL)
            // Thousands of devices share the client's connection pool: a request may queue.
            configuration.requestTimeout = .seconds(30)
            return FleetBackend(backend: backend, server: server, transport: HTTPSegmentsTransport(configuration: configuration))
        }
    }

    /// Makes the customer of `cookie` have exactly `segments` in `category` on the server now.
    func script(_ segments: [Segment], category: SegmentCategory, cookie: String) {
        backend.setSegments(segments, category: category, forCookie: cookie, projectToken: EngineUnderTest.project.token)
    }

    /// Events the server stored.
    var eventsAccepted: Int { backend.eventsAccepted }

    /// Stops the server.
    func shutdown() {
        if let server { try? runBlocking { try await server.stop() } }
    }
}
