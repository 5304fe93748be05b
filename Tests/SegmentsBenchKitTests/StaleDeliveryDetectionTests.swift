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
