import Foundation
import Logging
import RealtimeSegments
import RealtimeSegmentsHTTP
import SegmentsMockServer

/// A `SegmentsClient` wired to the in-process mock backend (directly or over loopback HTTP),
/// with its transport measured. Every scenario drives the engine through one of these.
public final class EngineUnderTest: Sendable {
    public static let project = MockProject(token: "bench-project", apiKey: "bench-key")

    public let backend: SegmentsBackend
    public let server: SegmentsMockHTTPServer?
    public let transport: MeasuringTransport
    public let client: SegmentsClient
    public let debounce: Duration
    /// The fault plan of whichever way in the engine uses.
    public let faults: FaultControl

    /// Replaces or reads the mock server's fault plan at run time.
    public struct FaultControl: Sendable {
        public let set: @Sendable (FaultPlan) -> Void
        public let counts: @Sendable () -> FaultCounts
    }

    /// Builds and starts the backend (and the HTTP server for `.http`); the client is created but
    /// not started, so callbacks can be registered first. Call from a plain thread (the harness's
    /// main thread), never from inside the Swift concurrency pool: it blocks.
    public static func make(
        transport kind: BenchOptions.Transport,
        debounce: Duration,
        maxWait: Duration? = nil,
        faults: FaultPlan = .none,
        deliveryMode: DeliveryMode = .ordered,
        requestTimeout: Duration = .seconds(5),
        markResponsesWithCookie: Bool = false,
        configure: (inout SegmentsConfiguration) -> Void = { _ in }
    ) throws -> EngineUnderTest {
        let backend = SegmentsBackend(projects: [project])
        let inner: any SegmentsTransport
        var server: SegmentsMockHTTPServer?
        let faultControl: FaultControl
        switch kind {
        case .memory:
            let mock = MockSegmentsTransport(backend: backend, faults: faults)
            faultControl = FaultControl(set: { mock.setFaultPlan($0) }, counts: { mock.faultCounts })
            inner = mock
        case .http:
            let started = SegmentsMockHTTPServer(backend: backend, faults: faults)
            try runBlocking { try await started.start() }
            server = started
            faultControl = FaultControl(set: { started.setFaultPlan($0) }, counts: { started.faultCounts })
            var configuration = try HTTPTransportConfiguration(baseURL: started.baseURL)
            configuration.requestTimeout = requestTimeout
            inner = HTTPSegmentsTransport(configuration: configuration)
        }
        let transport = MeasuringTransport(inner, debounce: debounce, markResponsesWithCookie: markResponsesWithCookie)
        var configuration = SegmentsConfiguration(
            projectToken: project.token, authorization: .token(project.apiKey), transport: transport)
        configuration.debounce = debounce
        configuration.maxWait = maxWait ?? max(debounce * 6, .milliseconds(1))
        configuration.deliveryMode = deliveryMode
        configuration.uploadRetry = RetryPolicy(initial: .milliseconds(50), maximum: .seconds(1))
        var logger = Logger(label: "segments-bench.engine")
        logger.logLevel = .critical
        configuration.logger = logger
        configure(&configuration)
        return EngineUnderTest(backend: backend, server: server, transport: transport, debounce: debounce,
                               client: SegmentsClient(configuration: configuration), faults: faultControl)
    }

    private init(backend: SegmentsBackend, server: SegmentsMockHTTPServer?, transport: MeasuringTransport,
                 debounce: Duration, client: SegmentsClient, faults: FaultControl) {
        self.faults = faults
        self.backend = backend
        self.server = server
        self.transport = transport
        self.debounce = debounce
        self.client = client
    }

    /// Stops the client and the server.
    public func shutdown() {
        client.stop()
        if let server { try? runBlocking { try await server.stop() } }
    }

    /// The current cookie.
    public var cookie: String { client.customerIds["cookie"] ?? "" }
}
