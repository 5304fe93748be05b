@testable import SegmentsBenchKit
import XCTest

final class PeersScenarioTests: XCTestCase {
    /// One quick run at N = 100, shared by every test (a run takes a few seconds in a debug build).
    private static let quickRun: Result<ScenarioResult, any Error> = Result {
        var options = BenchOptions()
        options.quick = true
        options.callbacks = 100
        return try PeersScenario().run(options, progress: Progress(enabled: false))
    }

    private func result() throws -> ScenarioResult { try Self.quickRun.get() }

    func testEveryMechanismIsMeasuredAtTheRequestedCallbackCount() throws {
        let result = try result()
        XCTAssertEqual(result.scenario, "peers")
        for mechanism in PeersScenario.mechanisms {
            XCTAssertNotNil(result.figure("peers.\(mechanism).N100.nsPerCallback"), mechanism)
            XCTAssertNotNil(result.figure("peers.\(mechanism).N100.ratioToFloor"), mechanism)
        }
        XCTAssertNotNil(result.figure("peers.engine.N100.speedupVsNotificationCenter"))
        XCTAssertNotNil(result.figure("peers.engine.N100.speedupVsOpenCombine"))
        XCTAssertNotNil(result.figure("peers.engine-parallel.N100.speedupVsNotificationCenter"))
        XCTAssertNotNil(result.figure("peers.engine-parallel.N100.speedupVsOpenCombine"))
        XCTAssertNotNil(result.figure("peers.engine-spin.N100.speedupVsNotificationCenter"))
        XCTAssertNotNil(result.figure("peers.engine-spin.N100.speedupVsOpenCombine"))
    }

    func testTheSpinningEnginesPriceIsReportedAndOnlyForIt() throws {
        let result = try result()
        let spin = try XCTUnwrap(result.figure("peers.engine-spin.N100.spinNsPerNotification"))
        XCTAssertEqual(spin.unit, "ns")
        // Checks follow each other well within the window, so the delivery thread spins between them.
        XCTAssertGreaterThan(spin.value, 0)
        XCTAssertEqual(result.figures.filter { $0.name.hasSuffix(".spinNsPerNotification") }.map(\.name), [spin.name])
        XCTAssertEqual(result.configuration["engineDeliveryModes"]?.contains("5 ms delivery spin window (engine-spin)"), true)
        XCTAssertNil(result.configuration["spinWindowMs"], "the default window is not an option given")
    }

    func testEveryRatioIsAPositiveFiniteNumber() throws {
        let ratios = try result().figures.filter { $0.unit == "ratio" }
        XCTAssertFalse(ratios.isEmpty)
        for figure in ratios {
            XCTAssertTrue(figure.value.isFinite && figure.value > 0, "\(figure.name) = \(figure.value)")
        }
    }

    func testTheFloorsRatioToItselfIsOne() throws {
        let floor = try XCTUnwrap(try result().figure("peers.closure-loop.N100.ratioToFloor"))
        XCTAssertEqual(floor.value, 1, accuracy: 1e-9)
        XCTAssertNil(floor.gate, "only the engine's ratios at N=1000 and N=10000 are gated")
    }

    func testNoMechanismLosesANotification() throws {
        let notes = try result().notes
        XCTAssertFalse(notes.contains { $0.hasPrefix("Loss detected") || $0.hasPrefix("Failed") }, "\(notes)")
    }

    func testThePeersChartHasOneLinePerMechanism() throws {
        let series = try result().series.filter { $0.chart == "peers" }
        XCTAssertEqual(Set(series.map(\.label)), Set(PeersScenario.mechanisms))
        XCTAssertEqual(series.count, PeersScenario.mechanisms.count)
        for line in series {
            XCTAssertEqual(line.points.map(\.x), [100], line.label)
            XCTAssertTrue(line.points.allSatisfy { $0.y > 0 }, line.label)
        }
    }

    func testLatenciesCoverEveryMechanismAtTheLargestCount() throws {
        let latencies = try result().latencies
        XCTAssertEqual(latencies.count, PeersScenario.mechanisms.count)
        XCTAssertTrue(latencies.allSatisfy { $0.count > 0 && $0.name.hasSuffix("N=100") })
    }

    func testASubscriberShortOfTheExpectedCountIsALoss() {
        let counters = SubscriberCounters(count: 3)
        counters.add(PeerPayloads.segmentCount, to: 0)
        counters.add(PeerPayloads.segmentCount, to: 2)
        let trial = PeerRounds.Outcome(recorder: LatencyRecorder(), sent: 1, gaveUp: false).trial(counters: counters)
        XCTAssertEqual(trial.loss, "1 of 3 subscribers did not receive all 1 notifications")
    }

    func testALossyMechanismIsReportedAsANoteNotAsANumber() {
        var floor = PeersScenario.MechanismResult(name: "closure-loop", timedSpan: "loop")
        floor.trialMeans = [100, 110, 90]
        var lossy = PeersScenario.MechanismResult(name: "opencombine", timedSpan: "send")
        lossy.trialMeans = [50]
        lossy.failure = .loss("1 of 3 subscribers did not receive all 2 notifications")
        var report = PeersScenario.Report()
        report.add([floor, lossy], callbacks: 3, progress: Progress(enabled: false))
        XCTAssertEqual(report.figures.first { $0.name == "peers.closure-loop.N3.ratioToFloor" }?.value, 1)
        XCTAssertFalse(report.figures.contains { $0.name.hasPrefix("peers.opencombine.") })
        XCTAssertNil(report.points["opencombine"])
        XCTAssertTrue(report.notes.contains { $0.hasPrefix("Loss detected: opencombine at N=3: 1 of 3 subscribers") }, "\(report.notes)")
    }

    func testAnEngineThatLosesANotificationOrFailsATrialIsAGatedCountNotOnlyANote() {
        var floor = PeersScenario.MechanismResult(name: "closure-loop", timedSpan: "loop")
        floor.trialMeans = [100]
        var healthy = PeersScenario.MechanismResult(name: "engine", timedSpan: "fetch → last")
        healthy.trialMeans = [90]
        var lossy = PeersScenario.MechanismResult(name: "engine-parallel", timedSpan: "fetch → last")
        lossy.failure = .loss("a check did not reach all 3 callbacks exactly once")
        var spinning = PeersScenario.MechanismResult(name: "engine-spin", timedSpan: "fetch → last")
        spinning.failure = .error("the engine could not be built")
        var report = PeersScenario.Report()
        report.add([floor, healthy, lossy, spinning], callbacks: 3, progress: Progress(enabled: false))
        var failing = PeersScenario.MechanismResult(name: "engine", timedSpan: "fetch → last")
        failing.failure = .error("the engine could not be built")
        report.add([floor, failing], callbacks: 4, progress: Progress(enabled: false))

        let lost = report.figures.first { $0.name == "peers.engine-parallel.N3.incomplete" }
        XCTAssertEqual(lost?.value, 1)
        XCTAssertEqual(lost?.gate, .zero)
        XCTAssertEqual(report.figures.first { $0.name == "peers.engine-spin.N3.incomplete" }?.value, 1)
        XCTAssertEqual(report.figures.first { $0.name == "peers.engine.N3.incomplete" }?.value, 0)
        XCTAssertEqual(report.figures.first { $0.name == "peers.engine.N4.incomplete" }?.value, 1)
        XCTAssertFalse(report.figures.contains { $0.name.hasPrefix("peers.closure-loop.") && $0.name.hasSuffix(".incomplete") })
    }
}
