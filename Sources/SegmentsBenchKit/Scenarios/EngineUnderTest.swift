import Foundation
import Logging
import RealtimeSegments
import RealtimeSegmentsHTTP
import SegmentsMockServer

/// A `SegmentsClient` wired to the in-process mock backend (directly or over loopback HTTP), or
/// to a ``BenchTarget`` over HTTP, with its transport measured. Every scenario drives the engine
/// through one of these.
public final class EngineUnderTest: Sendable {
    public static let project = MockProject(token: "bench-project", apiKey: "bench-key")

    /// The in-process mock backend; `nil` against a ``target``.
    public let mockBackend: SegmentsBackend?
    public let server: SegmentsMockHTTPServer?
    public let transport: MeasuringTransport
    public let client: SegmentsClient
    public let debounce: Duration
    /// The server driven instead of the mock, if any.
    public let target: BenchTarget?
    private let mockFaults: FaultControl?

    /// The in-process mock backend. Only a scenario whose ``Scenario/needsMockIntrospection`` is
    /// not `nil` may read it: such a scenario is refused a target, so its engine always has the
    /// mock. Reading it on an engine made for a target is a programming error and traps.
    public var backend: SegmentsBackend {
        guard let mockBackend else {
            preconditionFailure("EngineUnderTest.backend read against --target: the scenario must declare needsMockIntrospection")
        }
        return mockBackend
    }

    /// The fault plan of whichever way in the engine uses. Mock only, like ``backend`` (a target's
    /// faults are its own).
    public var faults: FaultControl {
        guard let mockFaults else {
            preconditionFailure("EngineUnderTest.faults read against --target: the scenario must declare needsMockIntrospection")
        }
        return mockFaults
    }

    /// Replaces or reads the mock server's fault plan at run time.
    public struct FaultControl: Sendable {
        public let set: @Sendable (FaultPlan) -> Void
        public let counts: @Sendable () -> FaultCounts
    }

    /// Builds and starts the backend (and the HTTP server for `.http`), or with a `target`
    /// connects to it over HTTP instead (`kind` and `faults` then play no part); the client is
    /// created but not started, so callbacks can be registered first. Call from a plain thread
    /// (the harness's main thread), never from inside the Swift concurrency pool: it blocks.
    public static func make(
        transport kind: BenchOptions.Transport,
        target: BenchTarget? = nil,
        debounce: Duration,
        maxWait: Duration? = nil,
        faults: FaultPlan = .none,
        deliveryMode: DeliveryMode = .ordered,
        requestTimeout: Duration = .seconds(5),
        markResponsesWithCookie: Bool = false,
        configure: (inout SegmentsConfiguration) -> Void = { _ in }
    ) throws -> EngineUnderTest {
        if let target {
            let transport = MeasuringTransport(
                target.makeTransport(requestTimeout: requestTimeout), debounce: debounce, markResponsesWithCookie: markResponsesWithCookie)
            var configuration = target.configuration(transport: transport)
            tune(&configuration, debounce: debounce, maxWait: maxWait, deliveryMode: deliveryMode)
            configure(&configuration)
            return EngineUnderTest(backend: nil, server: nil, transport: transport, debounce: debounce,
                                   client: SegmentsClient(configuration: configuration), faults: nil, target: target)
        }
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
        tune(&configuration, debounce: debounce, maxWait: maxWait, deliveryMode: deliveryMode)
        configure(&configuration)
        return EngineUnderTest(backend: backend, server: server, transport: transport, debounce: debounce,
                               client: SegmentsClient(configuration: configuration), faults: faultControl, target: nil)
    }

    /// The harness's settings, the same against the mock and a target.
    private static func tune(
        _ configuration: inout SegmentsConfiguration, debounce: Duration, maxWait: Duration?, deliveryMode: DeliveryMode
    ) {
        configuration.debounce = debounce
        configuration.maxWait = maxWait ?? max(debounce * 6, .milliseconds(1))
        configuration.deliveryMode = deliveryMode
        configuration.uploadRetry = RetryPolicy(initial: .milliseconds(50), maximum: .seconds(1))
        var logger = Logger(label: "segments-bench.engine")
        logger.logLevel = .critical
        configuration.logger = logger
    }

    private init(backend: SegmentsBackend?, server: SegmentsMockHTTPServer?, transport: MeasuringTransport,
                 debounce: Duration, client: SegmentsClient, faults: FaultControl?, target: BenchTarget?) {
        self.mockFaults = faults
        self.target = target
        self.mockBackend = backend
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
