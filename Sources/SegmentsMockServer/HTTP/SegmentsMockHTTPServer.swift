import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// The mock segments backend as a real HTTP/1.1 server on loopback, speaking the wire format of
/// SPEC §7, with the same model and the same kinds of faults as ``MockSegmentsTransport``.
///
/// ```swift
/// let backend = SegmentsBackend()
/// let server = try await SegmentsMockHTTPServer.startLocal(backend: backend)
/// // point the HTTP transport at server.baseURL, project "mock-project", key "mock-key"
/// try await server.stop()
/// ```
///
/// Routes (all answers `content-type: application/json`, keep-alive supported):
/// - `GET /webxp/projects/{token}/segments?cookie={cookie}` → 200, the bare object
///   `{"<category>": [{"id": ..., "segmentation_id": ...}], ...}`;
/// - `POST /webxp/projects/{token}/cookies/{cookie}/link-ids`, body `{"external_ids": {...}}` → 200 `{}`;
/// - `POST /track/v2/projects/{token}/customers/events`, body
///   `{"customer_ids": {...}, "event_type": "...", "timestamp": <seconds>, "properties": {...}}` →
///   200 `{"success":true}`;
/// - `POST /track/v2/projects/{token}/customers`, body `{"customer_ids": {...}, "properties": {...}}`
///   → 200 `{"success":true}`;
/// - `POST /track/v2/projects/{token}/batch`, body `{"commands": [{"name": "customers/events",
///   "data": <event>}, {"name": "customers", "data": <update>}, {"name": "system/time"}, ...]}` →
///   200 `{"results": [{"success":true}, ...], "success":true}`, one result per command in order
///   (`system/time`: `{"success":true,"time":<seconds>}`); a command that is not an object, has an
///   unknown name, or data of the wrong shape or content fails alone with
///   `{"success":false,"errors":["<reason>"]}`, and the valid ones are applied in order as one
///   model step. Only a body that is not `{"commands": [...]}` is a 400. One request for fault
///   purposes.
/// - `GET /track/v2/projects/{token}/system/time` → 200 `{"success":true,"time":<seconds since
///   1970>}` from ``SegmentsBackend/currentTime``.
/// - `POST /v3/graphql` (qualified segments, SPEC §9), headers `x-api-key: <apiKey>` and
///   `content-type: application/json`, body `{"query": ..., "variables": {...}}` → 200 with the
///   GraphQL result (`data`, and `errors` for an unknown user or an invalid query); 403 for a
///   missing or unknown key, 415 for another content type, 400 for a body that is not JSON or
///   lacks `query`. See the module documentation for the schema and the answers.
///
/// The project routes take `authorization: Token <apiKey>` or `Bearer <apiKey>`, or the project's
/// ``MockProject/keyPair`` as `Basic base64(<id>:<secret>)` (Exponea's private access).
///
/// Errors have Exponea's body `{"success": false, "errors": ["..."]}` plus the same message as
/// `"error"`: 404 for an unknown route or project token, 405 for a wrong method (with `allow`),
/// 401 for a missing, malformed or wrong `authorization`, 400 for a body that is not JSON or not
/// of the route's shape (or a fetch without `cookie`), 413 for a body over
/// ``maxRequestBodyBytes`` (the connection then closes).
///
/// Faults (``FaultPlan``): an error status with a JSON error body; latency before the answer; a
/// hang (no answer; the connection closes after the profile's `maxHang`, when the client gives up,
/// or when the server stops); a malformed 200 body; a truncated 200 body (`content-length` of the
/// full body, half of it sent, then close); a reset (the connection closed with a TCP RST, no
/// answer). A request that suffers a fault other than latency does not change the model.
///
/// Threading: every method may be called from any thread. The server runs on its own event loop
/// group, created by ``start()`` and shut down by ``stop()``.
public final class SegmentsMockHTTPServer: Sendable {
    /// The largest request body accepted; larger ones are answered with 413.
    public static let maxRequestBodyBytes = 8 * 1024 * 1024

    private enum Lifecycle {
        case idle
        case starting
        case running(group: MultiThreadedEventLoopGroup, channel: any Channel, connections: ConnectionRegistry, port: Int)
        /// `stop()` ran while `start()` was binding; `start()` undoes its work when it sees this.
        case stopRequestedWhileStarting
    }

    /// The backend requests go to.
    public let backend: SegmentsBackend
    /// The host given at construction.
    public let host: String
    private let requestedPort: Int
    private let injector: FaultInjector
    private let logger: Logger
    private let lifecycle = NIOLockedValueBox(Lifecycle.idle)

    /// Creates a server; nothing is bound until ``start()``.
    ///
    /// - Parameters:
    ///   - backend: The model the server serves.
    ///   - host: A loopback address: anything in 127.0.0.0/8, `::1`, or `localhost` (which binds
    ///     127.0.0.1). Checked by ``start()``.
    ///   - port: The port, or 0 for one chosen by the system (read it from ``port`` after starting).
    ///   - faults: The faults to inject; replace them later with ``setFaultPlan(_:)``.
    ///   - logger: Where the server logs (start, stop at info; every request at trace). Silent by
    ///     default.
    public init(
        backend: SegmentsBackend,
        host: String = "127.0.0.1",
        port: Int = 0,
        faults: FaultPlan = .none,
        logger: Logger = Logger(label: "SegmentsMockServer", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.backend = backend
        self.host = host
        self.requestedPort = port
        self.injector = FaultInjector(plan: faults)
        self.logger = logger
    }

    /// Creates a server on 127.0.0.1 with a system-chosen port and starts it.
    ///
    /// - Throws: ``SegmentsMockServerError/bindFailed(_:)`` if no socket could be bound.
    public static func startLocal(backend: SegmentsBackend, faults: FaultPlan = .none) async throws
        -> SegmentsMockHTTPServer
    {
        let server = SegmentsMockHTTPServer(backend: backend, faults: faults)
        try await server.start()
        return server
    }

    // MARK: Lifecycle

    /// Whether the server would listen on `host`: `localhost`, an IPv4 address in 127.0.0.0/8, or
    /// the IPv6 loopback `::1` (bracketed or not). Names other than `localhost` are not resolved.
    public static func isLoopback(host: String) -> Bool { LoopbackHost.bindAddress(for: host) != nil }

    /// Binds the socket and starts answering. A stopped server can be started again.
    ///
    /// - Throws: ``SegmentsMockServerError/nonLoopbackHost(_:)`` when ``host`` is not loopback
    ///   (nothing is bound); ``SegmentsMockServerError/alreadyStarted`` when starting or running;
    ///   ``SegmentsMockServerError/bindFailed(_:)`` when the socket cannot be bound;
    ///   ``SegmentsMockServerError/stoppedWhileStarting`` when ``stop()`` ran meanwhile.
    public func start() async throws(SegmentsMockServerError) {
        guard let address = LoopbackHost.bindAddress(for: host) else { throw .nonLoopbackHost(host) }
        let mayStart = lifecycle.withLockedValue { state in
            guard case .idle = state else { return false }
            state = .starting
            return true
        }
        guard mayStart else { throw .alreadyStarted }

        let group = MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)
        let connections = ConnectionRegistry()
        let channel: any Channel
        do {
            channel = try await bootstrap(group: group, connections: connections)
                .bind(host: address, port: requestedPort).get()
        } catch {
            try? await group.shutdownGracefully()
            lifecycle.withLockedValue { $0 = .idle }
            throw .bindFailed("\(error)")
        }

        let port = channel.localAddress?.port ?? requestedPort
        let stoppedMeanwhile = lifecycle.withLockedValue { state in
            guard case .starting = state else {
                state = .idle
                return true
            }
            state = .running(group: group, channel: channel, connections: connections, port: port)
            return false
        }
        if stoppedMeanwhile {
            try? await channel.close()
            await connections.closeAll()
            try? await group.shutdownGracefully()
            throw .stoppedWhileStarting
        }
        logger.info("mock server: listening on \(LoopbackHost.urlHost(address)):\(port)")
    }

    /// Stops answering: closes the listening socket and every open connection (ending hanging
    /// requests) and shuts the event loops down. Does nothing when the server is not running.
    ///
    /// - Throws: only if the event loop group fails to shut down.
    public func stop() async throws {
        let running = lifecycle.withLockedValue { state -> (MultiThreadedEventLoopGroup, any Channel, ConnectionRegistry)? in
            switch state {
            case .running(let group, let channel, let connections, _):
                state = .idle
                return (group, channel, connections)
            case .starting:
                state = .stopRequestedWhileStarting
                return nil
            case .idle, .stopRequestedWhileStarting:
                return nil
            }
        }
        guard let (group, channel, connections) = running else { return }
        // Closing the listener first means no connection can sneak in after closeAll().
        try? await channel.close()
        await connections.closeAll()
        try await group.shutdownGracefully()
        logger.info("mock server: stopped")
    }

    /// The bound port while running (the requested one otherwise, 0 meaning "system-chosen").
    public var port: Int {
        lifecycle.withLockedValue { state in
            if case .running(_, _, _, let port) = state { return port }
            return requestedPort
        }
    }

    /// `http://HOST:PORT` for the bound address (for example `http://127.0.0.1:54321`); IPv6 in
    /// brackets. Meaningful once started.
    public var baseURL: URL {
        let address = LoopbackHost.bindAddress(for: host) ?? host
        return URL(string: "http://\(LoopbackHost.urlHost(address)):\(port)")!
    }

    // MARK: Faults

    /// The fault plan in force.
    public var faultPlan: FaultPlan { injector.plan }

    /// Replaces the fault plan from the next request on; every endpoint's random stream restarts
    /// from the new seed. ``faultCounts`` keeps counting.
    public func setFaultPlan(_ plan: FaultPlan) { injector.replacePlan(plan) }

    /// The faults injected so far, per endpoint and kind.
    public var faultCounts: FaultCounts { injector.counts }

    // MARK: Pipeline

    private func bootstrap(group: MultiThreadedEventLoopGroup, connections: ConnectionRegistry) -> ServerBootstrap {
        let processor = MockRequestProcessor(backend: backend, injector: injector)
        let logger = logger
        return ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                connections.add(channel)
                return channel.eventLoop.makeCompletedFuture {
                    // Parse errors are answered by MockHTTPHandler (JSON body), not NIO's handler.
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                        withPipeliningAssistance: true, withErrorHandling: false)
                    try channel.pipeline.syncOperations.addHandler(
                        MockHTTPHandler(
                            processor: processor, maxBodyBytes: Self.maxRequestBodyBytes, logger: logger, connections: connections))
                }
            }
    }
}
