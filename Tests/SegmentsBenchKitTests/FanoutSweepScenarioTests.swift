@testable import SegmentsBenchKit
import XCTest

final class FanoutSweepScenarioTests: XCTestCase {
    /// The warm-up engines run before the first measured N and none of their checks is measured:
    /// each latency at N = 1 holds exactly the measured checks, and the report says a warm-up ran.
    func testTheWarmUpRunsFirstAndIsNotMeasured() throws {
        var options = BenchOptions()
        options.quick = true
        options.callbacks = 1
        let result = try FanoutSweepScenario().run(options, progress: Progress(enabled: false))

        XCTAssertEqual(
            result.configuration["warmUp"], "\(FanoutSweepScenario.warmUpChecks) checks at N=1 without and with the spin window, unmeasured")
        let measured = result.latencies.filter { $0.name.hasPrefix("first callback N=1") || $0.name.hasPrefix("last callback N=1") }
        XCTAssertEqual(measured.count, 2, "\(result.latencies.map(\.name))")
        for latency in measured {
            XCTAssertEqual(latency.count, 20, "\(latency.name): the quick run's 20 checks, none of the warm-up's")
        }
        XCTAssertEqual(result.figure("fanout-sweep.N1.incomplete")?.value, 0)
        XCTAssertEqual(result.figure("fanout-sweep.N1.spin.incomplete")?.value, 0)
        XCTAssertEqual(result.figure("fanout-sweep.N1.spin.firstCallbackP50Ns")?.summary.hasSuffix("deliverySpinWindow 5 ms"), true)
    }

    /// `--spin-window-ms` sets the window of the runs with one, and the report says which.
    func testTheSpinWindowCanBeChosen() throws {
        var options = BenchOptions()
        options.quick = true
        options.callbacks = 1
        options.spinWindowMs = 0.25
        let result = try FanoutSweepScenario().run(options, progress: Progress(enabled: false))

        XCTAssertEqual(result.configuration["spinWindowMs"], "0.25")
        let first = try XCTUnwrap(result.figure("fanout-sweep.N1.spin.firstCallbackP50Ns"))
        XCTAssertTrue(first.summary.hasSuffix("deliverySpinWindow 250 µs"), first.summary)
        XCTAssertEqual(result.figure("fanout-sweep.N1.spin.incomplete")?.value, 0)
    }

    func testAWindowIsNamedInMillisecondsOrMicroseconds() {
        XCTAssertEqual(FanoutProbe.label(.milliseconds(5)), "5 ms")
        XCTAssertEqual(FanoutProbe.label(.microseconds(250)), "250 µs")
        XCTAssertEqual(FanoutProbe.label(.microseconds(1_500)), "1500 µs")
        XCTAssertEqual(FanoutProbe.spinWindow(for: BenchOptions()), .milliseconds(5))
    }
}
