import Foundation
import RealtimeSegments
import SegmentsBenchKit
import Synchronization
import XCTest

/// SPEC §5: no callback may receive segments fetched for another customer, and the harness must
/// show we don't. Its stale-delivery counts are only worth their `must be 0` gate if they count a
/// leak: here an engine that, after each `anonymize()`, hands every callback the last data it got
/// for the customer just left, well past the scenarios' grace after the switch.
final class StaleDeliveryDetectionTests: XCTestCase {
    /// A one-second `customer-switch` run, ten switches a second, of `engine`.
    private func customerSwitch(_ engine: BenchEngineFactory = .segmentsClient) throws -> ScenarioResult {
        var options = BenchOptions()
        options.engine = engine
        options.duration = 1
        options.switchRate = 10
        return try CustomerSwitchScenario().run(options, progress: Progress(enabled: false))
    }

    func testCustomerSwitchCountsAnEngineThatLeaksThePreviousCustomersSegments() throws {
        let result = try customerSwitch(LeakingEngine.factory(leaking: .callbacks))
        XCTAssertGreaterThan(try XCTUnwrap(result.figure("customer-switch.staleDeliveries")).value, 0)
    }

    /// The pull path: an engine whose `getSegments` answers, after `anonymize()`, what it answered
    /// before it (a pull cache not cleared on the switch).
    func testCustomerSwitchCountsAPullAnsweredFromThePreviousCustomersCache() throws {
        let result = try customerSwitch(LeakingEngine.factory(leaking: .pulls))
        XCTAssertGreaterThan(try XCTUnwrap(result.figure("customer-switch.stalePulls")).value, 0)
        XCTAssertEqual(result.figure("customer-switch.staleDeliveries")?.value, 0, "callbacks do not leak in this engine")
    }

    func testCustomerSwitchFindsNothingStaleInTheRealEngineAndSwitchesDuringFetches() throws {
        let result = try customerSwitch()
        XCTAssertEqual(result.figure("customer-switch.stalePulls")?.value, 0)
        XCTAssertEqual(result.figure("customer-switch.noPullAnsweredAfterASwitch")?.value, 0, "the pulls after a switch were answered")
        XCTAssertEqual(result.figure("customer-switch.noSwitchDuringAFetch")?.value, 0, "switches landed while a fetch was in flight")
        XCTAssertEqual(result.figure("customer-switch.staleDeliveries")?.value, 0)
        XCTAssertEqual(result.figure("customer-switch.unmarkedDeliveries")?.value, 0, "a clearing delivery ([]) is not unmarked data")
        XCTAssertEqual(result.figure("customer-switch.repeatedDeliveries")?.value, 0)
    }

    /// SPEC §4: a callback hears changes. An engine that calls every callback twice with the same
    /// segments is counted.
    func testCustomerSwitchCountsAnEngineThatDeliversEachChangeTwice() throws {
        let result = try customerSwitch(LeakingEngine.factory(leaking: .repeats))
        XCTAssertGreaterThan(try XCTUnwrap(result.figure("customer-switch.repeatedDeliveries")).value, 0)
        XCTAssertEqual(result.figure("customer-switch.staleDeliveries")?.value, 0, "nothing stale in this engine")
    }

    func testTheFleetCountsAnEngineThatLeaksThePreviousCustomersSegments() throws {
        let result = try fleet(LeakingEngine.factory(leaking: .callbacks))
        XCTAssertGreaterThan(try XCTUnwrap(result.figure("fleet.switches")).value, 0)
        XCTAssertGreaterThan(try XCTUnwrap(result.figure("fleet.staleDeliveries")).value, 0)
    }

    /// A one-second fleet run of four devices tracking and switching, of `engine`.
    private func fleet(_ engine: BenchEngineFactory = .segmentsClient) throws -> ScenarioResult {
        var options = BenchOptions()
        (options.engine, options.devices, options.duration) = (engine, 4, 1)
        (options.rate, options.switchRate, options.fetchDelayMs) = (40, 8, 0)
        return try FleetScenario().run(options, progress: Progress(enabled: false))
    }

    /// SPEC §4 across a fleet: an engine that calls every callback twice with the same segments
    /// is counted; the real engine is not.
    func testTheFleetCountsAnEngineThatDeliversEachChangeTwice() throws {
        let result = try fleet(LeakingEngine.factory(leaking: .repeats))
        XCTAssertGreaterThan(try XCTUnwrap(result.figure("fleet.repeatedDeliveries")).value, 0)
        XCTAssertEqual(result.figure("fleet.staleDeliveries")?.value, 0, "nothing stale in this engine")
    }

    func testTheFleetFindsNoRepeatedDeliveryInTheRealEngine() throws {
        let result = try fleet()
        XCTAssertGreaterThan(try XCTUnwrap(result.figure("fleet.switches")).value, 0)
        XCTAssertGreaterThan(try XCTUnwrap(result.figure("fleet.deliveries")).value, 0)
        XCTAssertEqual(try XCTUnwrap(result.figure("fleet.repeatedDeliveries")).value, 0)
    }
}

/// `SegmentsClient` with a leak of the customer left by `anonymize()`: either 20 ms after it
/// returns (twice the scenarios' grace) every callback is called again with the last segments it
/// was given before the switch, or the first pull after it answers what the last pull before it
/// answered. Or, `repeats`, no leak but every delivery made twice.
private final class LeakingEngine: BenchEngine {
    enum Leak { case callbacks, pulls, repeats }

    /// The last segments one callback was given.
    private final class LastDelivery: Sendable {
        let segments = Mutex<[Segment]?>(nil)
    }

    private struct Registration {
        let registered: SegmentCallbackData
        let last: LastDelivery
    }

    private let inner: SegmentsClientEngine
    private let leak: Leak
    private let registrations = Mutex<[UUID: Registration]>([:])
    /// The last pull's answer, and whether the next pull gives it again.
    private let pulls = Mutex<(last: [Segment], replayNext: Bool)>(([], false))

    static func factory(leaking leak: Leak) -> BenchEngineFactory {
        BenchEngineFactory(name: "leaking") { configuration in
            LeakingEngine(inner: SegmentsClientEngine(SegmentsClient(configuration: configuration)), leak: leak)
        }
    }

    private init(inner: SegmentsClientEngine, leak: Leak) {
        self.inner = inner
        self.leak = leak
    }

    var customerIds: [String: String] { inner.customerIds }
    func start() { inner.start() }
    func stop() { inner.stop() }
    func addCallbacks(_ callbacks: [SegmentCallbackData]) {
        let wrapped = callbacks.map { callback in
            let last = LastDelivery()
            let repeats = leak == .repeats
            let registered = SegmentCallbackData(category: callback.category, isIncludeFirstLoad: callback.isIncludeFirstLoad) { segments in
                last.segments.withLock { $0 = segments }
                callback.onNewData(segments)
                if repeats { callback.onNewData(segments) }
            }
            registrations.withLock { $0[callback.id] = Registration(registered: registered, last: last) }
            return registered
        }
        inner.addCallbacks(wrapped)
    }
    func removeCallback(_ callback: SegmentCallbackData) {
        if let registration = registrations.withLock({ $0.removeValue(forKey: callback.id) }) {
            inner.removeCallback(registration.registered)
        }
    }
    func trackEvent(eventType: String, properties: [String: JSONValue]) throws {
        try inner.trackEvent(eventType: eventType, properties: properties)
    }
    func identifyCustomer(customerIds: [String: String], properties: [String: JSONValue]) throws {
        try inner.identifyCustomer(customerIds: customerIds, properties: properties)
    }
    func anonymize() {
        if leak != .callbacks {
            inner.anonymize()
            if leak == .pulls { pulls.withLock { $0.replayNext = true } }
            return
        }
        let replays = registrations.withLock { registrations in
            registrations.values.compactMap { registration in
                registration.last.segments.withLock { $0 }.map { (registration.registered.onNewData, $0) }
            }
        }
        inner.anonymize()
        Thread.detachNewThread {
            usleep(20_000)
            for (onNewData, segments) in replays { onNewData(segments) }
        }
    }
    func getSegments(category: SegmentCategory, force: Bool) async throws -> [Segment] {
        try await inner.getSegments(category: category, force: force)
    }
    func getSegments(category: SegmentCategory, force: Bool, result: @escaping @Sendable ([Segment]) -> Void) {
        let replay = pulls.withLock { pulls -> [Segment]? in
            defer { pulls.replayNext = false }
            return pulls.replayNext ? pulls.last : nil
        }
        if let replay { return result(replay) }
        inner.getSegments(category: category, force: force) { [self] segments in
            pulls.withLock { $0.last = segments }
            result(segments)
        }
    }
    func waitUntilIdle(timeout: Duration) -> Bool { inner.waitUntilIdle(timeout: timeout) }
    var counters: BenchEngineCounters { inner.counters }
}
