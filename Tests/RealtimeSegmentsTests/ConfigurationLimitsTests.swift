import Foundation
import XCTest

@_spi(Benchmarks) @testable import RealtimeSegments
import RealtimeSegmentsTesting

/// A configuration value out of range is brought into range with a `Segments:` warning, instead
/// of stalling uploads, spinning the engine or trapping.
final class ConfigurationLimitsTests: XCTestCase {
    /// The default ring is 4,096 events, one cache line each (256 KiB): a 16,384-event ring read
    /// slower in the harness (see `SegmentsConfiguration.ingestCapacity`).
    func testTheDefaultIngestRingHoldsFourThousandNinetySixEvents() {
        let fixture = Fixture()
        XCTAssertEqual(fixture.client.configuration.ingestCapacity, 4_096)
        XCTAssertEqual(fixture.client.channels.ring.capacity, 4_096)
    }

    func testOutOfRangeValuesAreBroughtIntoRangeWithAWarningAndEventsStillGoOut() throws {
        let fixture = Fixture {
            $0.maxUploadBatchSize = 0
            $0.ingestCapacity = .max
            $0.debounce = .seconds(-1)
            $0.uploadRetry = RetryPolicy(initial: .seconds(-1), maximum: .seconds(-2))
        }
        let configuration = fixture.client.configuration
        XCTAssertEqual(configuration.maxUploadBatchSize, 1)
        XCTAssertEqual(configuration.ingestCapacity, 1 << 20)
        XCTAssertEqual(configuration.debounce, .zero)
        XCTAssertEqual(configuration.uploadRetry, RetryPolicy(initial: .milliseconds(10), maximum: .milliseconds(10)))
        for line in [
            "Segments: configuration maxUploadBatchSize 0 is below 1; using 1",
            "Segments: configuration ingestCapacity \(Int.max) is out of range 1...1048576; using 1048576",
            "Segments: configuration debounce -1.0 seconds is negative; using 0.0 seconds",
        ] {
            XCTAssertTrue(fixture.logs.contains(line), "missing: \(line)\nlogged: \(fixture.logs.messages)")
        }
        fixture.client.start()
        for name in ["a", "b", "c"] { try fixture.client.trackEvent(eventType: name) }
        fixture.settle()
        XCTAssertEqual(fixture.transport.trackedEvents.map(\.eventType), ["a", "b", "c"])
        XCTAssertEqual(fixture.transport.trackBatchCount, 3, "batches of one")
    }

    func testATooFrequentPeriodicFlushIsSlowedToTheMinimum() {
        var configuration = SegmentsConfiguration(projectToken: "t", transport: InMemorySegmentsTransport())
        configuration.flushingMode = .periodic(.zero)
        XCTAssertEqual(configuration.withinLimits().flushingMode, .periodic(.milliseconds(10)))
        configuration.flushingMode = .periodic(.seconds(2))
        XCTAssertEqual(configuration.withinLimits().flushingMode, .periodic(.seconds(2)), "values in range are kept")
    }

    func testRetryDelaysDoubleUpToTheMaximumAndNeverOverflow() {
        let policy = RetryPolicy(initial: .seconds(1), maximum: .seconds(60))
        XCTAssertEqual((1...8).map { policy.delay(afterFailures: $0) },
                       [.seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(16), .seconds(32), .seconds(60), .seconds(60)])
        // Near the top of `Duration`'s range: doubling up to it would overflow (and trap).
        let huge = Duration.seconds(Int64.max) * 18
        let unbounded = RetryPolicy(initial: .seconds(1), maximum: huge)
        XCTAssertEqual(unbounded.delay(afterFailures: 1_000), huge)
    }
}
