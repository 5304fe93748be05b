import Atomics
import Foundation
import RealtimeSegments
import SegmentsBenchCLI
import SegmentsBenchKit
import XCTest

final class BenchEngineTests: XCTestCase {
    func testTheDefaultEngineIsSegmentsClient() {
        XCTAssertTrue(ScenarioRegistry().engine.isDefault)
        XCTAssertTrue(BenchOptions().engine.isDefault)
        XCTAssertNil(BenchOptions().configuration(honouring: [])["engine"])
    }

    func testScenariosDeclareWhetherTheyNeedSegmentsClient() {
        let any = ScenarioRegistry.builtIn.filter { $0.needsSegmentsClient == nil }.map(\.name)
        XCTAssertEqual(Set(any), ["customer-switch", "pull", "faults", "soak", "fleet"])
    }

    func testAScenarioDrivesTheRegistrysEngine() throws {
        let calls = CallCounts()
        var options = BenchOptions()
        options.engine = CountingEngine.factory(calls)
        options.devices = 4
        options.duration = 0.5
        options.rate = 40
        options.switchRate = 4
        options.fetchDelayMs = 0
        let result = try FleetScenario().run(options, progress: Progress(enabled: false))
        XCTAssertEqual(calls.made.load(ordering: .relaxed), 4, "one engine per device")
        XCTAssertEqual(calls.started.load(ordering: .relaxed), 4)
        XCTAssertEqual(calls.stopped.load(ordering: .relaxed), 4)
        XCTAssertEqual(Double(calls.tracked.load(ordering: .relaxed)), result.figure("fleet.eventsTracked")?.value)
        XCTAssertEqual(result.figure("fleet.lostEvents")?.value, 0)
        XCTAssertEqual(result.configuration["engine"], "counting")
    }

    func testTheCommandLineRunsTheRegistrysEngineAndRefusesScenariosThatMeasureSegmentsClientItself() throws {
        let calls = CallCounts()
        var registry = ScenarioRegistry()
        registry.engine = CountingEngine.factory(calls)
        let out = scratch()
        try SegmentsBenchCLI.run(["run", "pull", "--quick", "--duration", "0.3", "--producers", "1", "--out", out], registry: registry)
        XCTAssertEqual(calls.made.load(ordering: .relaxed), 1)
        XCTAssertGreaterThan(calls.pulled.load(ordering: .relaxed), 0)
        let report = try ReportWriter.makeJSONDecoder().decode(
            BenchReport.self, from: Data(contentsOf: URL(fileURLWithPath: out).appendingPathComponent("report.json")))
        XCTAssertEqual(report.scenarios.first?.configuration["engine"], "counting")

        XCTAssertThrowsError(try SegmentsBenchCLI.run(["run", "hot-path", "--quick", "--out", scratch()], registry: registry)) { error in
            XCTAssertEqual(SegmentsBenchCLI.exitStatus(for: error), 64)
            XCTAssertTrue(
                SegmentsBenchCLI.message(for: error).contains("scenario 'hot-path' cannot drive the engine 'counting': it needs SegmentsClient's"),
                SegmentsBenchCLI.message(for: error))
        }
    }

    private func scratch() -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("engine-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        return directory.path
    }
}

/// What the engines of one ``CountingEngine/factory(_:)`` were asked to do.
private final class CallCounts: Sendable {
    let made = ManagedAtomic(0)
    let started = ManagedAtomic(0)
    let stopped = ManagedAtomic(0)
    let tracked = ManagedAtomic(0)
    let pulled = ManagedAtomic(0)
}

/// An engine of another implementation, as far as the scenarios can tell: a `SegmentsClient`
/// wrapped, counting the calls that reach it.
private final class CountingEngine: BenchEngine {
    private let inner: SegmentsClientEngine
    private let calls: CallCounts

    static func factory(_ calls: CallCounts) -> BenchEngineFactory {
        BenchEngineFactory(name: "counting") { configuration in
            calls.made.wrappingIncrement(ordering: .relaxed)
            return CountingEngine(inner: SegmentsClientEngine(SegmentsClient(configuration: configuration)), calls: calls)
        }
    }

    private init(inner: SegmentsClientEngine, calls: CallCounts) {
        self.inner = inner
        self.calls = calls
    }

    var customerIds: [String: String] { inner.customerIds }
    func start() {
        calls.started.wrappingIncrement(ordering: .relaxed)
        inner.start()
    }
    func stop() {
        calls.stopped.wrappingIncrement(ordering: .relaxed)
        inner.stop()
    }
    func addCallbacks(_ callbacks: [SegmentCallbackData]) { inner.addCallbacks(callbacks) }
    func removeCallback(_ callback: SegmentCallbackData) { inner.removeCallback(callback) }
    func trackEvent(eventType: String, properties: [String: JSONValue]) throws {
        try inner.trackEvent(eventType: eventType, properties: properties)
        calls.tracked.wrappingIncrement(ordering: .relaxed)
    }
    func identifyCustomer(customerIds: [String: String], properties: [String: JSONValue]) throws {
        try inner.identifyCustomer(customerIds: customerIds, properties: properties)
    }
    func anonymize() { inner.anonymize() }
    func getSegments(category: SegmentCategory, force: Bool) async throws -> [Segment] {
        calls.pulled.wrappingIncrement(ordering: .relaxed)
        return try await inner.getSegments(category: category, force: force)
    }
    func getSegments(category: SegmentCategory, force: Bool, result: @escaping @Sendable ([Segment]) -> Void) {
        calls.pulled.wrappingIncrement(ordering: .relaxed)
        inner.getSegments(category: category, force: force, result: result)
    }
    func waitUntilIdle(timeout: Duration) -> Bool { inner.waitUntilIdle(timeout: timeout) }
    var counters: BenchEngineCounters { inner.counters }
}
