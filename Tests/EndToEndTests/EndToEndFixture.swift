import Foundation
import Logging
import RealtimeSegments
import RealtimeSegmentsHTTP
import SegmentsMockServer
import XCTest

/// The engine talking HTTP to the mock server on loopback, on a manual clock (the engine's timers)
/// with real sockets (the HTTP deadlines are real time).
final class EndToEndFixture: Sendable {
    static let project = MockProject(token: "e2e-project", apiKey: "e2e-key")

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
        qualifiedSegments: QualifiedSegmentsConfiguration? = nil
    ) throws {
        server = SegmentsMockHTTPServer(backend: backend, faults: faults)
        let server = server
        try runBlocking { try await server.start() }
        var transportConfiguration = try HTTPTransportConfiguration(baseURL: server.baseURL)
        transportConfiguration.requestTimeout = requestTimeout
        var configuration = SegmentsConfiguration(
            projectToken: projectToken, authorization: authorization,
            transport: HTTPSegmentsTransport(configuration: transportConfiguration))
        configuration.clock = clock
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
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        do { box.set(.success(try await body())) } catch { box.set(.failure(error)) }
        done.signal()
    }
    done.wait()
    return try box.get()
}

private final class ResultBox<T: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: written once before the semaphore is signalled, read after waiting on it.
    private var result: Result<T, any Error>?
    func set(_ value: Result<T, any Error>) { result = value }
    func get() throws -> T { try result!.get() }
}

/// Log lines of the client, for the exact `Segments:` texts.
final class LogLines: Sendable {
    private let lines = NSLockedArray()

    var logger: Logger {
        var logger = Logger(label: "EndToEndTests") { [lines] _ in Handler(lines: lines) }
        logger.logLevel = .trace
        return logger
    }

    var all: [String] { lines.values }
    func count(prefix: String) -> Int { all.filter { $0.hasPrefix(prefix) }.count }

    private struct Handler: LogHandler {
        let lines: NSLockedArray
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) { lines.append(event.message.description) }
    }
}

final class NSLockedArray: @unchecked Sendable {
    // @unchecked Sendable: `storage` is only touched while holding `lock`.
    private let lock = NSLock()
    private var storage: [String] = []
    func append(_ value: String) { lock.withLock { storage.append(value) } }
    var values: [String] { lock.withLock { storage } }
}
