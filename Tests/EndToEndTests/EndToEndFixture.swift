import Foundation
import Logging
import RealtimeSegments
import RealtimeSegmentsHTTP
import RealtimeSegmentsTesting
import SegmentsMockServer
import XCTest

/// The engine talking HTTP to the mock server on loopback, on a manual clock (the engine's timers)
/// with real sockets (the HTTP deadlines are real time).
final class EndToEndFixture: Sendable {
    static let project = MockProject(
        token: "e2e-project", apiKey: "e2e-key", keyPair: MockKeyPair(id: "e2e-key-id", secret: "e2e-secret"))

    let backend = SegmentsBackend(projects: [EndToEndFixture.project])
    let server: SegmentsMockHTTPServer
    let clock = ManualClock()
    let logs = LogLines()
    let client: SegmentsClient

    init(
        faults: FaultPlan = .none,
        authorization: SegmentsAuthorization? = .token(EndToEndFixture.project.apiKey),
        projectToken: String = EndToEndFixture.project.token,
        requestTimeout: Duration = .seconds(10),
        useBatchEndpoint: Bool = true,
        flushingMode: FlushingMode = .immediate,
        qualifiedSegments: QualifiedSegmentsConfiguration? = nil
    ) throws {
        server = SegmentsMockHTTPServer(backend: backend, faults: faults)
        let server = server
        try runBlocking { try await server.start() }
        var transportConfiguration = try HTTPTransportConfiguration(baseURL: server.baseURL)
        transportConfiguration.requestTimeout = requestTimeout
        transportConfiguration.useBatchEndpoint = useBatchEndpoint
        var configuration = SegmentsConfiguration(
            projectToken: projectToken, authorization: authorization,
            transport: HTTPSegmentsTransport(configuration: transportConfiguration, logger: logs.logger))
        configuration.clock = clock
        configuration.flushingMode = flushingMode
        configuration.logger = logs.logger
        configuration.qualifiedSegments = qualifiedSegments
        client = SegmentsClient(configuration: configuration)
    }

    deinit {
        client.stop()
        let server = server
        try? runBlocking { try await server.stop() }
    }

    func settle(file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue(client.waitUntilIdle(timeout: .seconds(30)), "engine did not settle", file: file, line: line)
    }

    func advance(_ duration: Duration, file: StaticString = #filePath, line: UInt = #line) {
        clock.advance(by: duration)
        settle(file: file, line: line)
    }

    var cookie: String { client.customerIds["cookie"] ?? "" }
}

/// Runs `body` to completion from synchronous code (tests run on the main thread, outside the
/// cooperative pool that the engine's tasks use).
func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let box = LockBox<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        let result: Result<T, any Error>
        do { result = .success(try await body()) } catch { result = .failure(error) }
        box.withLock { $0 = result }
        done.signal()
    }
    done.wait()
    // Set before the semaphore is signalled.
    return try box.value!.get()
}

/// Log lines of the client, for the exact `Segments:` texts.
final class LogLines: Sendable {
    private let lines = LockBox<[String]>([])

    var logger: Logger {
        var logger = Logger(label: "EndToEndTests") { [lines] _ in Handler(lines: lines) }
        logger.logLevel = .trace
        return logger
    }

    var all: [String] { lines.value }
    func count(prefix: String) -> Int { all.filter { $0.hasPrefix(prefix) }.count }

    private struct Handler: LogHandler {
        let lines: LockBox<[String]>
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) { lines.append(event.message.description) }
    }
}

/// A value behind an `NSLock`: the one lock wrapper of these tests.
final class LockBox<Value>: @unchecked Sendable {
    // @unchecked Sendable: `stored` is only accessed inside `withLock`, under `lock`.
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) { self.stored = value }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try lock.withLock { try body(&stored) }
    }

    /// A copy of the value.
    var value: Value { withLock { $0 } }

    /// Appends `element` to the array held.
    func append<Element>(_ element: Element) where Value == [Element] {
        withLock { $0.append(element) }
    }
}
