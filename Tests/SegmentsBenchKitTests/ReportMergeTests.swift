import Foundation
import Histogram
@testable import SegmentsBenchCLI
@testable import SegmentsBenchKit
import XCTest

/// `segments-bench merge`: one report from several machines' reports.
final class ReportMergeTests: XCTestCase {
    private let second: UInt64 = 1_000_000_000

    private func machine(_ hostname: String) -> MachineInfo {
        MachineInfo(hostname: hostname, cores: 2, memoryBytes: 1 << 30, cpuModel: "cpu", kernel: "k", swiftVersion: "6",
                    loadAverage: "0.1", jemalloc: "unavailable")
    }

    private func report(host: String, latency: LatencyRecorder, figures: [Figure]) -> BenchReport {
        BenchReport(
            machine: machine(host), gitRevision: "abc", startedAt: Date(timeIntervalSince1970: 1_700_000_000), command: "test",
            scenarios: [ScenarioResult(
                scenario: "storm", summary: "s", configuration: ["rate": "100"], figures: figures,
                latencies: [latency.summary("call", definition: "d", corrected: true)], allocationsMeasured: true)])
    }

    private func figures(lost: Double, ratio: Double, events: Double) -> [Figure] {
        [Figure(name: "storm.lostEvents", value: lost, unit: "count", gate: .zero, summary: "lost"),
         Figure(name: "storm.p50ToFloor", value: ratio, unit: "ratio", gate: .latencyRatio, summary: "ratio"),
         Figure(name: "storm.events", value: events, unit: "count", summary: "events"),
         Figure(name: "storm.fetchesPerWindow", value: ratio, unit: "fetches", gate: .atMost(2), summary: "fetches")]
    }

    /// One host's quick run merged with another's full one mixes loads: merge names the options
    /// that differ (it said nothing, and only a later `check` against a baseline warned).
    func testTheOptionsTheHostsRanDifferentlyAreNamed() {
        var quick = report(host: "a", latency: LatencyRecorder(), figures: figures(lost: 0, ratio: 1, events: 10))
        quick.scenarios[0].configuration["quick"] = "true"
        let full = report(host: "b", latency: LatencyRecorder(), figures: figures(lost: 0, ratio: 1, events: 10))
        XCTAssertEqual(ReportMerge.configurationDifferences([(host: "a", report: quick), (host: "b", report: full)]),
                       ["storm.quick: a=true; b=—"])
        XCTAssertEqual(ReportMerge.configurationDifferences([(host: "a", report: full), (host: "b", report: full)]), [])
        // Each host's --threshold limits judged that host; they did not change its load.
        var limited = full
        limited.scenarios[0].configuration["threshold"] = "p99(storm.x)<1ms"
        XCTAssertEqual(ReportMerge.configurationDifferences([(host: "a", report: limited), (host: "b", report: full)]), [])
    }

    /// Writes `report` with the real writer and reads it back, as `merge` reads reports.
    private func roundTrip(_ report: BenchReport) throws -> (BenchReport, URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("merge-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        try ReportWriter(directory: directory).write(report)
        return (try MergeCommand.load(directory.path), directory)
    }

    func testMergingTwoHalvesReproducesTheWholeRunsHistogram() throws {
        var random = SystemRandomNumberGenerator()
        var whole = LatencyRecorder()
        var halves = [IntervalLatencyRecorder(origin: 0, expectedIntervals: 3), IntervalLatencyRecorder(origin: 0, expectedIntervals: 3)]
        for index in 0..<20_000 {
            let value = UInt64.random(in: 1...2_000_000_000, using: &random)
            whole.record(value)
            halves[index % 2].record(value, at: UInt64(index % 3) * second)
        }
        let (a, _) = try roundTrip(report(host: "a", latency: halves[0].finish(startTime: 1_700_000_000),
                                          figures: figures(lost: 0, ratio: 1.5, events: 10)))
        let (b, _) = try roundTrip(report(host: "b", latency: halves[1].finish(startTime: 1_700_000_000.2),
                                          figures: figures(lost: 0, ratio: 2.5, events: 32)))
        let merged = try ReportMerge.merge([(host: "a", report: a), (host: "b", report: b)], command: "merge")
        let (reread, directory) = try roundTrip(merged)

        let latency = try XCTUnwrap(reread.scenarios.first?.latencies.first)
        // The whole run as its own report holds it: each bucket, not the exact maximum (which a
        // percentile in the top bucket is clamped to), so percentiles come from the buckets.
        let (single, _) = try roundTrip(report(host: "whole", latency: whole, figures: []))
        let singleHistogram = try XCTUnwrap(single.scenarios.first?.latencies.first).histogram
        let expected = LatencySummary(name: "call", definition: "d", histogram: singleHistogram)
        XCTAssertEqual(latency.count, 20_000)
        XCTAssertEqual(latency.histogram, expected.histogram)
        XCTAssertEqual(latency.histogram, whole.histogram, "every bucket of the whole run, exactly")
        XCTAssertEqual(Array(latency.histogram.recordedValues()).map(\.count), Array(whole.histogram.recordedValues()).map(\.count))
        XCTAssertEqual(latency.percentiles.map(\.value), expected.percentiles.map(\.value))
        XCTAssertTrue(latency.coordinatedOmissionCorrected)
        XCTAssertEqual(latency.intervals.map(\.host), ["a", "b"])
        XCTAssertEqual(latency.intervals.reduce(0) { $0 + $1.total.totalCount }, 20_000)

        let hlog = try String(contentsOf: directory.appendingPathComponent("storm.call.hlog"), encoding: .utf8)
        XCTAssertEqual(hlog.components(separatedBy: "Tag=host:a;").count - 1, 3)
        XCTAssertEqual(hlog.components(separatedBy: "Tag=host:b;").count - 1, 3)
        XCTAssertEqual(reread.machine.hostname, "a + b")
        XCTAssertEqual(reread.machine.cores, 4)
    }

    func testCountersAreSummedRatiosTakeTheWorstHostWithTheSpread() throws {
        let empty = LatencyRecorder()
        let merged = try ReportMerge.merge([
            (host: "a", report: report(host: "a", latency: empty, figures: figures(lost: 0, ratio: 1.5, events: 10))),
            (host: "b", report: report(host: "b", latency: empty, figures: figures(lost: 0, ratio: 2.5, events: 32))),
        ], command: "merge")
        let scenario = try XCTUnwrap(merged.scenarios.first)
        XCTAssertEqual(scenario.figure("storm.events")?.value, 42)
        XCTAssertEqual(scenario.figure("storm.lostEvents")?.value, 0)
        XCTAssertEqual(scenario.figure("storm.p50ToFloor")?.value, 2.5)
        XCTAssertEqual(scenario.figure("storm.fetchesPerWindow")?.value, 2.5)
        let note = try XCTUnwrap(scenario.notes.first { $0.hasPrefix("`storm.p50ToFloor` per host") })
        XCTAssertTrue(note.contains("a 1.5"), note)
        XCTAssertTrue(note.contains("b 2.5"), note)
        XCTAssertTrue(note.contains("spread (max − min) 1"), note)
        XCTAssertEqual(scenario.configuration["rate"], "100")
    }

    func testOneHostsCorrectnessFailureFailsTheMergedGate() throws {
        let empty = LatencyRecorder()
        let good = report(host: "a", latency: empty, figures: figures(lost: 0, ratio: 1, events: 10))
        let bad = report(host: "b", latency: empty, figures: figures(lost: 3, ratio: 1, events: 10))
        let baseline = Baseline(from: good)
        let alsoGood = report(host: "a2", latency: empty, figures: figures(lost: 0, ratio: 1, events: 10))
        let passing = try ReportMerge.merge([(host: "a", report: good), (host: "a2", report: alsoGood)], command: "merge")
        XCTAssertTrue(GateCheck(report: passing, baseline: baseline).passed)
        let failing = try ReportMerge.merge([(host: "a", report: good), (host: "b", report: bad)], command: "merge")
        XCTAssertEqual(failing.scenarios[0].figure("storm.lostEvents")?.value, 3)
        let check = GateCheck(report: failing, baseline: baseline)
        XCTAssertEqual(check.rows.first { $0.name == "storm.lostEvents" }?.verdict, .violated)
        XCTAssertEqual(check.exitStatus, .violation)
    }

    /// A host whose run was interrupted (a pod killed at its time limit) leaves the merged report
    /// interrupted, naming the host: the merge passed the gate with what the host never finished.
    func testAHostsInterruptedRunLeavesTheMergedReportInterrupted() throws {
        let empty = LatencyRecorder()
        let good = report(host: "a", latency: empty, figures: figures(lost: 0, ratio: 1, events: 10))
        var killed = report(host: "b", latency: empty, figures: [])
        killed.scenarios = []
        killed.interrupted = "signal 15 (Terminated) during scenario storm"
        let merged = try ReportMerge.merge([(host: "a", report: good), (host: "b", report: killed)], command: "merge")
        XCTAssertEqual(merged.interrupted, "b: signal 15 (Terminated) during scenario storm")
        XCTAssertEqual(GateCheck(report: merged, baseline: Baseline(from: good)).exitStatus, .harnessError)
        XCTAssertNil(try ReportMerge.merge([(host: "a", report: good)], command: "merge").interrupted)
    }

    /// `--out` naming one of the reports merged would replace it with the merge: refused.
    func testMergeRefusesToWriteOverAReportItMerges() throws {
        let (_, directory) = try roundTrip(report(host: "a", latency: LatencyRecorder(), figures: []))
        XCTAssertThrowsError(try MergeCommand.parse([directory.path, "--out", directory.path + "/"]).validate()) { error in
            XCTAssertTrue("\(error)".contains("is one of the reports merged"), "\(error)")
        }
        XCTAssertThrowsError(try MergeCommand.parse([directory.appendingPathComponent("report.json").path, "--out", directory.path]).validate())
    }

    func testHostNamesAreMadeUnique() {
        let empty = LatencyRecorder()
        let reports = ["x", "x", "y"].map { report(host: $0, latency: empty, figures: []) }
        XCTAssertEqual(ReportMerge.hostNames(of: reports, directories: ["/r/one", "/r/two", "/r/three"]), ["x (one)", "x (two)", "y"])
        XCTAssertEqual(ReportMerge.hostNames(of: reports, directories: ["/r/same", "/q/same", "/r/y"]), ["x (same)", "x (same) #2", "y"])
    }

    func testNoReportsAndUnreadableReportsAreTypedErrors() {
        XCTAssertThrowsError(try ReportMerge.merge([], command: "merge")) { XCTAssertEqual($0 as? MergeError, .noReports) }
        XCTAssertThrowsError(try MergeCommand.load("/nonexistent/report-dir")) {
            guard case .unreadable? = $0 as? MergeError else { return XCTFail("\($0)") }
        }
    }

    /// A gated count is a per-host figure judged against a one-host baseline (requests per burst,
    /// an average): merged hosts keep the worst host's value, not the sum.
    func testAGatedCountIsNotSummedOverHosts() throws {
        let perBurst = { (value: Double) in
            Figure(name: "storm.requestsPerBurst", value: value, unit: "count", gate: .lowerIsBetter(relative: 0, absolute: 0),
                   summary: "requests per burst")
        }
        let a = report(host: "a", latency: LatencyRecorder(), figures: [perBurst(1)])
        let b = report(host: "b", latency: LatencyRecorder(), figures: [perBurst(1)])
        let merged = try ReportMerge.merge([(host: "a", report: a), (host: "b", report: b)], command: "merge")
        XCTAssertEqual(merged.scenarios.first?.figure("storm.requestsPerBurst")?.value, 1)
        let check = GateCheck(report: merged, baseline: Baseline(from: a))
        XCTAssertTrue(check.passed, check.renderTable())
    }

    /// An ungated figure records no direction: the merged value is the highest host's, and the note
    /// says so rather than calling it the worst.
    /// A figure repeating a latency's percentile on one host does not repeat the merged one: the
    /// merged figure is the worst host's value, the merged latency the hosts' histograms added.
    func testAMergedFigureNoLongerRestatesAPercentile() throws {
        var fast = LatencyRecorder()
        for _ in 0..<100 { fast.record(1_000) }
        var slow = LatencyRecorder()
        for _ in 0..<100 { slow.record(9_000) }
        func figure(_ latency: LatencyRecorder) -> Figure {
            let summary = latency.summary("call", definition: "d", corrected: true)
            return Figure(name: "storm.callP50", value: Double(summary.p50), unit: "ns",
                          restates: summary.comparedName("p50", in: "storm"), summary: "p50")
        }
        let a = report(host: "a", latency: fast, figures: [figure(fast)])
        let b = report(host: "b", latency: slow, figures: [figure(slow)])
        let merged = try ReportMerge.merge([(host: "a", report: a), (host: "b", report: b)], command: "merge")
        XCTAssertNil(merged.scenarios[0].figure("storm.callP50")?.restates)
        let alone = try ReportMerge.merge([(host: "a", report: a)], command: "merge")
        XCTAssertEqual(alone.scenarios[0].figure("storm.callP50")?.restates, "storm.call p50")
    }

    func testAnUngatedFigureIsNotCalledTheWorstHostsValue() throws {
        let speedup = { (value: Double) in Figure(name: "storm.speedup", value: value, unit: "ratio", summary: "speedup") }
        let merged = try ReportMerge.merge([
            (host: "fast", report: report(host: "fast", latency: LatencyRecorder(), figures: [speedup(3)])),
            (host: "slow", report: report(host: "slow", latency: LatencyRecorder(), figures: [speedup(1.5)])),
        ], command: "merge")
        let scenario = try XCTUnwrap(merged.scenarios.first)
        let note = try XCTUnwrap(scenario.notes.first { $0.hasPrefix("`storm.speedup` per host") })
        XCTAssertEqual(scenario.figure("storm.speedup")?.value, 3)
        XCTAssertFalse(note.contains("the worst host's value"), note)
        XCTAssertTrue(note.contains("the highest host's value"), note)
    }

    /// A ratio that says higher is better (a speed-up, the churn rate achieved over the rate
    /// asked for) merges to the slowest host's value, as the README promises: it took the fastest.
    func testAnUngatedRatioThatSaysHigherIsBetterTakesTheWorstHostsValue() throws {
        let speedup = { (value: Double) in
            Figure(name: "storm.speedup", value: value, unit: "ratio", direction: .higherIsBetter, summary: "speedup")
        }
        let merged = try ReportMerge.merge([
            (host: "fast", report: report(host: "fast", latency: LatencyRecorder(), figures: [speedup(1.01)])),
            (host: "slow", report: report(host: "slow", latency: LatencyRecorder(), figures: [speedup(0.30)])),
        ], command: "merge")
        let scenario = try XCTUnwrap(merged.scenarios.first)
        XCTAssertEqual(scenario.figure("storm.speedup")?.value, 0.30)
        let note = try XCTUnwrap(scenario.notes.first { $0.hasPrefix("`storm.speedup` per host") })
        XCTAssertTrue(note.contains("the worst host's value"), note)
    }

    /// One host lost a callback, so its allocation count is unmeasured; the other measured it. The
    /// merged figure is the other's, and the merged gate's verdict the violation (3): a NaN there
    /// made it a harness error (70) that hid the violation.
    func testAFigureOneHostLeftUnmeasuredAfterAViolationKeepsTheViolationAsTheMergedVerdict() throws {
        let incomplete = { (value: Double) in
            Figure(name: "storm.incomplete", value: value, unit: "count", gate: .zero, summary: "")
        }
        let allocations = Figure(name: "storm.allocsPerCheck", value: 80, unit: "allocs/check", gate: .allocations, summary: "")
        var broken = report(host: "a", latency: LatencyRecorder(), figures: [incomplete(1)])
        broken.scenarios[0].unmeasuredAfterViolation = [allocations.name]
        let clean = report(host: "b", latency: LatencyRecorder(), figures: [incomplete(0), allocations])
        let merged = try ReportMerge.merge([(host: "a", report: broken), (host: "b", report: clean)], command: "merge")
        XCTAssertEqual(merged.scenarios.first?.figure(allocations.name)?.value, 80)
        let check = GateCheck(report: merged, baseline: Baseline(from: clean))
        XCTAssertEqual(check.exitStatus, .violation, check.renderTable())
    }

    /// A latency read without its recorded buckets (a report written before they were kept) cannot
    /// be added exactly: merge refuses it instead of reporting 0 samples.
    func testALatencyWithoutRecordedBucketsIsRefused() throws {
        let json = """
            {"name": "call", "definition": "d", "count": 1000, "p50": 500, "p90": 800, "p99": 900,
             "p999": 950, "max": 1000, "mean": 510, "coordinatedOmissionCorrected": false}
            """
        let latency = try ReportWriter.makeJSONDecoder().decode(LatencySummary.self, from: Data(json.utf8))
        var a = report(host: "a", latency: LatencyRecorder(), figures: [])
        a.scenarios[0].latencies = [latency]
        var b = report(host: "b", latency: LatencyRecorder(), figures: [])
        b.scenarios[0].latencies = [latency]
        XCTAssertThrowsError(try ReportMerge.merge([(host: "a", report: a), (host: "b", report: b)], command: "merge")) { error in
            XCTAssertEqual(error as? MergeError, .histogramMissing(host: "a", scenario: "storm", latency: "call"))
        }
    }

    /// A report with a scenario, figure or latency twice cannot be merged: merge kept the first and
    /// dropped the rest, so a host's failing value vanished and the merged report passed the gate
    /// (`check` refuses such a report).
    func testAReportHoldingAScenarioFigureOrLatencyTwiceIsRefused() throws {
        let empty = LatencyRecorder()
        let good = report(host: "a", latency: empty, figures: figures(lost: 0, ratio: 1, events: 10))
        var twiceFigure = report(host: "b", latency: empty, figures: figures(lost: 0, ratio: 1, events: 10))
        twiceFigure.scenarios[0].figures.append(Figure(name: "storm.lostEvents", value: 5, unit: "count", gate: .zero, summary: "lost"))
        XCTAssertThrowsError(try ReportMerge.merge([(host: "a", report: good), (host: "b", report: twiceFigure)], command: "merge")) { error in
            XCTAssertEqual(error as? MergeError, .duplicated(host: "b", what: "figure storm.lostEvents", times: 2))
            XCTAssertEqual("\(error)", "Segments: merge: b's report holds figure storm.lostEvents 2 times: which is the measurement is unknown")
        }
        var twiceScenario = report(host: "b", latency: empty, figures: figures(lost: 0, ratio: 1, events: 10))
        twiceScenario.scenarios.append(twiceScenario.scenarios[0])
        XCTAssertThrowsError(try ReportMerge.merge([(host: "b", report: twiceScenario)], command: "merge")) { error in
            XCTAssertEqual(error as? MergeError, .duplicated(host: "b", what: "scenario storm", times: 2))
        }
        var twiceLatency = report(host: "b", latency: empty, figures: figures(lost: 0, ratio: 1, events: 10))
        twiceLatency.scenarios[0].latencies.append(twiceLatency.scenarios[0].latencies[0])
        XCTAssertThrowsError(try ReportMerge.merge([(host: "a", report: good), (host: "b", report: twiceLatency)], command: "merge")) { error in
            XCTAssertEqual(error as? MergeError, .duplicated(host: "b", what: "storm latency 'call'", times: 2))
        }
    }

    /// Values no 64-bit histogram can hold: a latency whose samples' sum passes 2⁶⁴ ns, read from
    /// a file or made by adding hosts, and machines whose memory or cores pass the integers, are
    /// refused or saturated (each crashed merge with an arithmetic overflow).
    func testSumsPastSixtyFourBitsAreRefusedOrSaturatedNotACrash() throws {
        let json = """
            {"name": "call", "definition": "d", "count": 1000000000, "p50": 60000000000, "max": 60000000000, "mean": 6e10,
             "recorded": [{"value": 60000000000, "count": 1000000000}]}
            """
        XCTAssertThrowsError(try ReportWriter.makeJSONDecoder().decode(LatencySummary.self, from: Data(json.utf8))) { error in
            XCTAssertTrue("\(error)".contains("2^64"), "\(error)")
        }
        var near = LatencyRecorder()
        near.record(60_000_000_000, count: 200_000_000)
        let a = report(host: "a", latency: near, figures: [])
        var b = report(host: "b", latency: near, figures: [])
        b.startedAt = "2024-01-01T00:00:00Z"
        XCTAssertThrowsError(try ReportMerge.merge([(host: "a", report: a), (host: "b", report: b)], command: "merge")) { error in
            XCTAssertEqual(error as? MergeError, .latencyOutOfRange(scenario: "storm", latency: "call"))
        }
        var big = report(host: "a", latency: LatencyRecorder(), figures: [])
        big.machine.memoryBytes = .max
        big.machine.cores = .max
        var small = report(host: "b", latency: LatencyRecorder(), figures: [])
        small.machine.memoryBytes = 2
        small.machine.cores = 5
        small.startedAt = "2024-01-01T00:00:00Z"
        let merged = try ReportMerge.merge([(host: "a", report: big), (host: "b", report: small)], command: "merge")
        XCTAssertEqual(merged.machine.memoryBytes, .max)
        XCTAssertEqual(merged.machine.cores, .max)
    }

    /// A latency whose buckets hold another count than it says is refused as that, not as one
    /// written before buckets were kept.
    func testALatencyWhoseBucketsDisagreeWithItsCountSaysSo() throws {
        let json = """
            {"name": "call", "definition": "d", "count": 5, "p50": 500, "max": 1000, "mean": 510,
             "recorded": [{"value": 500, "count": 3}]}
            """
        let latency = try ReportWriter.makeJSONDecoder().decode(LatencySummary.self, from: Data(json.utf8))
        var a = report(host: "a", latency: LatencyRecorder(), figures: [])
        a.scenarios[0].latencies = [latency]
        XCTAssertThrowsError(try ReportMerge.merge([(host: "a", report: a)], command: "merge")) { error in
            XCTAssertEqual(error as? MergeError, .histogramCountDiffers(host: "a", scenario: "storm", latency: "call", count: 5, recorded: 3))
            XCTAssertEqual("\(error)", "Segments: merge: a's storm latency 'call' says 5 samples and its recorded buckets hold 3: the report is damaged")
        }
    }

    /// A gated figure where higher is better takes the slowest host, so the merged gate sees it; a
    /// zero rule's hosts never cancel out; and only an allocation count, only on a host that
    /// could not count allocations, is excused when missing.
    func testTheMergedValueIsTheOneThatFailsTheGate() throws {
        let empty = LatencyRecorder()
        let rate = { (value: Double) in Figure(name: "storm.rate", value: value, unit: "x", gate: .higherIsBetter(relative: 0.1, absolute: 0), summary: "") }
        let zero = { (value: Double) in Figure(name: "storm.drift", value: value, unit: "count", gate: .zero, summary: "") }
        let fast = report(host: "a", latency: empty, figures: [rate(100), zero(1)])
        let slow = report(host: "b", latency: empty, figures: [rate(50), zero(-1)])
        let merged = try ReportMerge.merge([(host: "a", report: fast), (host: "b", report: slow)], command: "merge")
        XCTAssertEqual(merged.scenarios[0].figure("storm.rate")?.value, 50)
        XCTAssertEqual(merged.scenarios[0].figure("storm.drift")?.value, 2)
        let check = GateCheck(report: merged, baseline: Baseline(from: report(host: "a", latency: empty, figures: [rate(100), zero(0)])))
        XCTAssertEqual(check.rows.first { $0.name == "storm.rate" }?.verdict, .regressed)
        XCTAssertEqual(check.rows.first { $0.name == "storm.drift" }?.verdict, .violated)

        let lost = Figure(name: "storm.lostEvents", value: 0, unit: "count", gate: .zero, summary: "")
        let allocs = Figure(name: "storm.allocs", value: 1, unit: "allocs/op", gate: .allocations, summary: "")
        var uncounted = report(host: "a", latency: empty, figures: [allocs])  // no lostEvents
        uncounted.scenarios[0].allocationsMeasured = false
        let counted = report(host: "b", latency: empty, figures: [lost, allocs])
        let withoutLost = try ReportMerge.merge([(host: "a", report: uncounted), (host: "b", report: counted)], command: "merge")
        XCTAssertTrue(try XCTUnwrap(withoutLost.scenarios[0].figure("storm.lostEvents")).value.isNaN, "not excused for want of jemalloc")
        let countedWithoutAllocs = report(host: "a", latency: empty, figures: [lost])
        let withoutAllocs = try ReportMerge.merge([(host: "a", report: countedWithoutAllocs), (host: "b", report: counted)], command: "merge")
        XCTAssertTrue(try XCTUnwrap(withoutAllocs.scenarios[0].figure("storm.allocs")).value.isNaN, "a host that counts must report it")
    }
}
