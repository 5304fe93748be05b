import Foundation
import RealtimeSegments
import RealtimeSegmentsTesting
import XCTest

/// A client on a manual clock and an in-memory transport, with captured logs.
final class Fixture: Sendable {
    static let token = "test-token"

    let clock = ManualClock()
    let transport = InMemorySegmentsTransport(expectedProjectToken: Fixture.token)
    let logs = LogCapture()
    let recorder = Recorder()
    let client: SegmentsClient
    let stateDirectory: URL?

    /// Unless `directoryMayBeRefused`, fails the test if the client could not take `stateDirectory`
    /// (held by a client not stopped, or another project's): such a client keeps its state in
    /// memory, and a test of what it restores would pass whatever the engine did.
    init(
        stateDirectory: URL? = nil,
        transport: InMemorySegmentsTransport? = nil,
        directoryMayBeRefused: Bool = false,
        file: StaticString = #filePath, line: UInt = #line,
        configure: (inout SegmentsConfiguration) -> Void = { _ in }
    ) {
        self.stateDirectory = stateDirectory
        var configuration = SegmentsConfiguration(
            projectToken: Fixture.token, authorization: .token("secret"), transport: transport ?? self.transport)
        configuration.clock = clock
        configuration.logger = logs.makeLogger()
        configuration.stateDirectory = stateDirectory
        // Retry delays exactly as the policy's doubling says (UploadRefusalTests covers jitter).
        configuration.uploadRetry.jitter = 0
        configure(&configuration)
        client = SegmentsClient(configuration: configuration)
        if let stateDirectory, !directoryMayBeRefused {
            let refusal = logs.messages.first { $0.hasPrefix("Segments: State directory \(stateDirectory.path)") }
            XCTAssertNil(refusal, "the fixture's client did not get its state directory", file: file, line: line)
        }
    }

    deinit { client.stop() }

    /// A fixture whose transport answers `response` to every fetch, started and settled.
    static func started(answering response: SegmentsResponse) -> Fixture {
        let fixture = Fixture()
        fixture.transport.defaultResponse = response
        fixture.client.start()
        fixture.settle()
        return fixture
    }

    /// Waits for the engine to settle (fails the test if it does not within 10 s).
    func settle(file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue(client.waitUntilIdle(timeout: .seconds(10)), "engine did not settle", file: file, line: line)
    }

    /// Moves the clock forward and lets the engine react.
    func advance(_ duration: Duration, file: StaticString = #filePath, line: UInt = #line) {
        clock.advance(by: duration)
        settle(file: file, line: line)
    }

    /// Runs out the debounce window (the default 5 s) with the transport holding fetches, and waits
    /// until the check's fetch is held: a check in flight until the test calls
    /// `transport.releaseHeldFetches()`.
    func holdTheNextCheck(file: StaticString = #filePath, line: UInt = #line) {
        transport.holdFetches()
        clock.advance(by: .seconds(5))
        waitUntil(file: file, line: line) { self.transport.heldFetchCount == 1 }
    }

    /// Starts the client and runs the initial debounce window to completion.
    func startAndRunInitialCheck() {
        client.start()
        settle()
        advance(.seconds(5))
    }

    func register(_ category: SegmentCategory, firstLoad: Bool = false, tag: String = "") -> SegmentCallbackData {
        let callback = recorder.callback(category, firstLoad: firstLoad, tag: tag)
        client.segmentation.addCallback(callbackData: callback)
        settle()
        return callback
    }

    /// Calls `stop()` on a thread of its own; the semaphore is signalled once it returns.
    func stopOnAnotherThread() -> DispatchSemaphore {
        let returned = DispatchSemaphore(value: 0)
        let client = client
        Thread.detachNewThread {
            client.stop()
            returned.signal()
        }
        return returned
    }

    /// The current cookie.
    var cookie: String { client.customerIds["cookie"] ?? "" }
}

/// A fresh temporary directory.
func temporaryDirectory() -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("rs-tests-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Polls `condition` (for states with no event to wait on, like "a fetch is being held").
func waitUntil(timeout: TimeInterval = 10, file: StaticString = #filePath, line: UInt = #line, _ condition: () -> Bool) {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        if Date() > deadline {
            XCTFail("condition not met within \(timeout) s", file: file, line: line)
            return
        }
        usleep(1_000)
    }
}
