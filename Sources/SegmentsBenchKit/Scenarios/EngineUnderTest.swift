import Foundation
import Logging
import RealtimeSegments
import RealtimeSegmentsHTTP
import SegmentsMockServer

/// An engine (a `SegmentsClient`, or whichever ``BenchEngineFactory`` makes) wired to the
/// in-process mock backend (directly or over loopback HTTP), or to a ``BenchTarget`` over HTTP,
/// with its transport measured. Every scenario drives the engine through one of these.
public final class EngineUnderTest: Sendable {
    public static let project = MockProject(token: "bench-project", apiKey: "bench-key")

    /// The in-process mock backend; `nil` against a ``target``.
    public let mockBackend: SegmentsBackend?
    public let server: SegmentsMockHTTPServer?
    public let transport: MeasuringTransport
    /// The engine driven: scenarios that drive any engine call it only through ``BenchEngine``.
    public let engine: any BenchEngine
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

    /// The `SegmentsClient` driven, for scenarios that measure its own API beyond ``BenchEngine``
    /// (they declare ``Scenario/needsSegmentsClient``, so they are never given another engine).
    /// Reading it on an engine made by another factory is a programming error and traps.
    public var client: SegmentsClient {
        guard let adapter = engine as? SegmentsClientEngine else {
            preconditionFailure("EngineUnderTest.client read on the engine '\(type(of: engine))': the scenario must declare needsSegmentsClient")
        }
        return adapter.client
    }

    /// Replaces or reads the mock server's fault plan at run time.
    public struct FaultControl: Sendable {
        public let set: @Sendable (FaultPlan) -> Void
        public let counts: @Sendable () -> FaultCounts
    }

    /// Builds and starts the backend (and the HTTP server for `.http`), or with a `target`
    /// connects to it over HTTP instead (`kind` and `faults` then play no part); the engine is
    /// made by `engine` but not started, so callbacks can be registered first. Call from a plain
    /// thread (the harness's main thread), never from inside the Swift concurrency pool: it blocks.
    /// - Throws: when the server cannot start or `engine` cannot make its engine.
    public static func make(
        transport kind: BenchOptions.Transport,
        target: BenchTarget? = nil,
        debounce: Duration,
        maxWait: Duration? = nil,
        faults: FaultPlan = .none,
        deliveryMode: DeliveryMode = .ordered,
        requestTimeout: Duration = .seconds(5),
        markResponsesWithCookie: Bool = false,
        engine factory: BenchEngineFactory = .segmentsClient,
        configure: (inout SegmentsConfiguration) -> Void = { _ in }
    ) throws -> EngineUnderTest {
        if let target {
            let transport = MeasuringTransport(
                target.makeTransport(requestTimeout: requestTimeout), debounce: debounce, markResponsesWithCookie: markResponsesWithCookie)
            var configuration = target.configuration(transport: transport)
            tune(&configuration, debounce: debounce, maxWait: maxWait, deliveryMode: deliveryMode)
            configure(&configuration)
            return EngineUnderTest(backend: nil, server: nil, transport: transport, debounce: debounce,
                                   engine: try factory.makeEngine(configuration), faults: nil, target: target)
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
        let engine: any BenchEngine
        do {
            engine = try factory.makeEngine(configuration)
        } catch {
            if let server { try? runBlocking { try await server.stop() } }
            throw error
        }
        return EngineUnderTest(backend: backend, server: server, transport: transport, debounce: debounce,
                               engine: engine, faults: faultControl, target: nil)
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
                 debounce: Duration, engine: any BenchEngine, faults: FaultControl?, target: BenchTarget?) {
        self.mockFaults = faults
        self.target = target
        self.mockBackend = backend
        self.server = server
        self.transport = transport
        self.debounce = debounce
        self.engine = engine
    }

    /// Stops the engine and the server.
    public func shutdown() {
        engine.stop()
        if let server { try? runBlocking { try await server.stop() } }
    }

    /// The current cookie.
    public var cookie: String { engine.cookie }
}
