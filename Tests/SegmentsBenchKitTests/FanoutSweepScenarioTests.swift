import Dispatch
@_spi(Benchmarks) @testable import RealtimeSegments
@testable import SegmentsBenchKit
import XCTest

final class FanoutSweepScenarioTests: XCTestCase {
    /// A quick run of the scenario at N = 1 only, with `configure`'s options.
    private func runQuickAtOneCallback(_ configure: (inout BenchOptions) -> Void = { _ in }) throws -> ScenarioResult {
        var options = BenchOptions()
        options.quick = true
        options.callbacks = 1
        configure(&options)
        return try FanoutSweepScenario().run(options, progress: Progress(enabled: false))
    }

    /// The warm-up engines run before the first measured N and none of their checks is measured:
    /// each latency at N = 1 holds exactly the measured checks, and the report says a warm-up ran.
    func testTheWarmUpRunsFirstAndIsNotMeasured() throws {
        let result = try runQuickAtOneCallback()

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

    /// With `--callbacks`, the report describes the run that happened: that N alone, without the
    /// registration-churn phase, which a note names.
    func testARunAtOneNSaysSoAndThatTheChurnPhaseDidNotRun() throws {
        let result = try runQuickAtOneCallback()
        XCTAssertTrue(result.summary.hasPrefix("one segment change delivered to N = 1 callback of one category"), result.summary)
        XCTAssertFalse(result.summary.contains("100k"), result.summary)
        XCTAssertTrue(result.notes.contains { $0.contains("--callbacks 1") && $0.contains("churn") }, "\(result.notes)")
        XCTAssertNil(result.figure("fanout-sweep.churn.incomplete"))
    }

    /// `--spin-window-ms` sets the window of the runs with one, and the report says which.
    func testTheSpinWindowCanBeChosen() throws {
        let result = try runQuickAtOneCallback { $0.spinWindowMs = 0.25 }

        XCTAssertEqual(result.configuration["spinWindowMs"], "0.25")
        let first = try XCTUnwrap(result.figure("fanout-sweep.N1.spin.firstCallbackP50Ns"))
        XCTAssertTrue(first.summary.hasSuffix("deliverySpinWindow 250 µs"), first.summary)
        XCTAssertEqual(result.figure("fanout-sweep.N1.spin.incomplete")?.value, 0)
    }

    /// The sparse checks, more than the window apart with the mock's answer delayed, run without
    /// and with the window and say so; every one reaches its callback; `--fetch-delay-ms` sets
    /// the delay.
    func testSparseChecksRunWithoutAndWithTheWindowAndReachTheirCallback() throws {
        let result = try runQuickAtOneCallback { $0.fetchDelayMs = 0.5 }

        XCTAssertEqual(result.configuration["fetchDelayMs"], "0.5")
        XCTAssertEqual(result.figure("fanout-sweep.sparse.incomplete")?.value, 0)
        XCTAssertEqual(result.figure("fanout-sweep.sparse.incomplete")?.gate, .zero)
        let without = try XCTUnwrap(result.figure("fanout-sweep.sparse.firstCallbackP50Ns"))
        XCTAssertTrue(without.summary.hasSuffix("checks 7 ms apart, fetch answered after 0.5 ms, no spin window"), without.summary)
        let with = try XCTUnwrap(result.figure("fanout-sweep.sparse.spin.firstCallbackP50Ns"))
        XCTAssertTrue(with.summary.hasSuffix("deliverySpinWindow 5 ms"), with.summary)
        for name in ["fanout-sweep.sparse.spin.handedOffShare", "fanout-sweep.sparse.spin.spinNsPerCheck"] {
            let figure = try XCTUnwrap(result.figure(name), name)
            XCTAssertNil(figure.gate, "\(name): wall-clock, reported")
        }
    }

    /// The breakdown runs, without and with the spin window, report every stage of the first
    /// callback's time at each N and for the sparse checks, from checks whose stamps were all there.
    func testTheBreakdownReportsEveryStageWithoutAndWithTheWindow() throws {
        let result = try runQuickAtOneCallback()

        XCTAssertNotNil(result.configuration["breakdown"])
        for prefix in [
            "fanout-sweep.N1.breakdown", "fanout-sweep.N1.spin.breakdown",
            "fanout-sweep.sparse.breakdown", "fanout-sweep.sparse.spin.breakdown",
        ] {
            var sum = 0.0
            for stage in NotificationStages.Stage.allCases {
                let figure = try XCTUnwrap(result.figure("\(prefix).\(stage.rawValue)P50Ns"), "\(prefix) \(stage)")
                XCTAssertGreaterThanOrEqual(figure.value, 0)
                XCTAssertNil(figure.gate, "wall-clock: reported, not gated")
                sum += figure.value
            }
            XCTAssertGreaterThan(sum, 0, prefix)
            XCTAssertNotNil(result.figure("\(prefix).firstCallbackP50Ns"), prefix)
        }
        XCTAssertNotNil(result.figure("fanout-sweep.N1.spin.breakdown.handedOffShare"))
        XCTAssertTrue(try XCTUnwrap(result.figure("fanout-sweep.N1.breakdown.spellP50Ns")).summary.hasSuffix("no spin window"))
        XCTAssertTrue(
            try XCTUnwrap(result.figure("fanout-sweep.sparse.spin.breakdown.resumeP50Ns")).summary
                .hasSuffix("sparse checks, deliverySpinWindow 5 ms"))
        XCTAssertFalse(result.notes.contains { $0.contains("lacked a stamp") }, "\(result.notes)")
        for chart in ["first-callback-breakdown", "first-callback-breakdown-spin-window"] {
            XCTAssertEqual(
                result.series.filter { $0.chart == chart }.map(\.label), NotificationStages.Stage.allCases.map(\.rawValue), chart)
        }
    }

    func testAChecksStagesAddUpToItsFirstCallbackAndAGapIsNotRecorded() {
        var stages = NotificationStages()
        let timeline = CheckTimeline()
        // No stamp yet: the check is left out.
        stages.record(received: 1, timeline: timeline, firstCallback: 2)
        XCTAssertEqual(stages.unstampedChecks, 1)
        XCTAssertTrue(stages.recorders.isEmpty)

        let received = DispatchTime.now().uptimeNanoseconds
        for stage in CheckTimeline.Stage.allCases { timeline.mark(stage) }
        let firstCallback = DispatchTime.now().uptimeNanoseconds
        stages.record(received: received, timeline: timeline, firstCallback: firstCallback)
        XCTAssertEqual(stages.unstampedChecks, 1)
        let total = NotificationStages.Stage.allCases.reduce(UInt64(0)) { sum, stage in
            sum + UInt64(stages.recorders[stage]?.summary("", definition: "").max ?? 0)
        }
        // One sample per stage: its maximum is the sample, to the histogram's precision.
        XCTAssertEqual(Double(total), Double(firstCallback - received), accuracy: Double(firstCallback - received) * 0.01 + 10)

        // Out of order (the first callback before the delivery started): left out.
        stages.record(received: received, timeline: timeline, firstCallback: received)
        XCTAssertEqual(stages.unstampedChecks, 2)
    }

    /// A run in which no check completed has no latency to report: not a p50 of 0 ns.
    func testARunWithoutACompletedCheckReportsNoLatency() {
        let measurement = FanoutProbe.EngineMeasurement(
            first: LatencyRecorder(), last: LatencyRecorder(), allocationsPerCheck: nil, floor: LatencyRecorder(), complete: false)
        let figures = FanoutSweepScenario.breakdownFigures(measurement, prefix: "p", size: 1, windowLabel: nil)
        XCTAssertFalse(figures.contains { $0.name == "p.firstCallbackP50Ns" }, "\(figures.map(\.name))")
    }

    /// The floor's p50, the ratio's denominator, comes from the same rounds as the engine's: one
    /// per measured check, not the warm-up check's too.
    func testTheFloorHasOneRoundPerMeasuredCheck() throws {
        let measurement = try FanoutProbe.engine(targets: FanoutTargets(count: 1), checks: 3, mode: .ordered, floorRounds: true)
        XCTAssertEqual(measurement.floor.count, measurement.last.count)
    }

    func testAWindowIsNamedInMillisecondsOrMicroseconds() {
        XCTAssertEqual(FanoutProbe.label(.milliseconds(5)), "5 ms")
        XCTAssertEqual(FanoutProbe.label(.microseconds(250)), "250 µs")
        XCTAssertEqual(FanoutProbe.label(.microseconds(1_500)), "1500 µs")
        XCTAssertEqual(FanoutProbe.spinWindow(for: BenchOptions()), .milliseconds(5))
    }
}
