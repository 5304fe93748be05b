import Foundation
import SegmentsBenchCLI
import SegmentsBenchKit
import SegmentsMockServer
import XCTest

final class FleetScenarioTests: XCTestCase {
    /// One small run (50 devices, 2 s), shared by every test.
    private static let smallRun: Result<ScenarioResult, any Error> = Result {
        var options = BenchOptions()
        options.devices = 50
        options.duration = 2
        options.rate = 200
        options.switchRate = 10
        return try FleetScenario().run(options, progress: Progress(enabled: false))
    }

    private func result() throws -> ScenarioResult { try Self.smallRun.get() }

    func testTheScenarioIsInTheCatalog() {
        XCTAssertNotNil(ScenarioRegistry().named("fleet"))
    }

    func testEveryCorrectnessCounterIsZero() throws {
        let result = try result()
        for name in ["lostEvents", "staleDeliveries", "unmarkedDeliveries", "excessFetches", "trackFailures"] {
            XCTAssertEqual(result.figure("fleet.\(name)")?.value, 0, name)
        }
    }

    func testEveryDeviceLoadsAndTheFleetTracksAndSwitches() throws {
        let result = try result()
        XCTAssertEqual(result.figure("fleet.devices")?.value, 50)
        XCTAssertEqual(result.figure("fleet.devicesLoaded")?.value, 50)
        XCTAssertGreaterThan(try XCTUnwrap(result.figure("fleet.eventsTracked")).value, 0)
        XCTAssertGreaterThan(try XCTUnwrap(result.figure("fleet.switches")).value, 0)
        XCTAssertNotNil(result.figure("fleet.memoryPerDeviceBytes"))
    }

    func testEveryLatencyIsReported() throws {
        let names = try result().latencies.map(\.name)
        XCTAssertEqual(names, FleetScenario.latencyMetrics)
        let byName = Dictionary(uniqueKeysWithValues: try result().latencies.map { ($0.name, $0) })
        for name in ["change-to-callback", "fetch", "upload", "track", "first-load"] {
            XCTAssertGreaterThan(try XCTUnwrap(byName[name]).count, 0, name)
        }
    }

    func testAMissedThresholdIsRecordedInTheResult() throws {
        var result = try result()
        result.judge([try RunThreshold.parse("max(fetch)<1ns", scenarios: ["fleet"])])
        XCTAssertEqual(result.figure("fleet.thresholdsFailed")?.value, 1)
        XCTAssertTrue(result.notes.contains { $0.hasPrefix("threshold max(fetch)<1ns: FAILED") }, "\(result.notes)")
    }

    func testBadStagesOrThresholdsAreUsageErrors() {
        for arguments in [
            ["run", "fleet", "--stages", "10s:fast"],
            ["run", "fleet", "--stages", "10s:100", "--rate", "5"],
            ["run", "fleet", "--threshold", "p99(nothing)<5ms"],
            ["run", "fleet", "--devices", "0"],
            ["run", "fleet", "--fetch-delay-ms", "-1"],
        ] {
            XCTAssertThrowsError(try SegmentsBenchCLI.run(arguments + ["--out", scratch()], registry: ScenarioRegistry())) { error in
                XCTAssertEqual(SegmentsBenchCLI.exitStatus(for: error), 64, "\(arguments)")
            }
        }
    }

    /// Fleet's latency names are checked before the run; a limit on one of its figures is not a
    /// latency and is judged after it.
    func testALimitOnAFleetFigureIsJudgedNotRefused() throws {
        let arguments = ["run", "fleet", "--devices", "5", "--duration", "0.5", "--threshold", "value(fleet.lostEvents)<=0", "--out", scratch()]
        XCTAssertNoThrow(try SegmentsBenchCLI.run(arguments, registry: ScenarioRegistry()))
    }

    func testAMissedThresholdExitsWithTheRegressionStatus() throws {
        let arguments = ["run", "fleet", "--devices", "5", "--duration", "0.5", "--threshold", "max(fetch)<1ns", "--out", scratch()]
        XCTAssertThrowsError(try SegmentsBenchCLI.run(arguments, registry: ScenarioRegistry())) { error in
            XCTAssertEqual(SegmentsBenchCLI.exitStatus(for: error), ExitStatus.regression.rawValue)
        }
    }

    func testAgainstATargetTheClientCountsAcknowledgedEventsAndLeavesOutChangeToCallback() throws {
        let backend = SegmentsBackend(projects: [MockProject(token: "fleet-target", apiKey: "fleet-key")])
        let server = SegmentsMockHTTPServer(backend: backend)
        try runBlocking { try await server.start() }
        defer { try? runBlocking { try await server.stop() } }
        var options = BenchOptions()
        options.target = try BenchTarget(
            url: server.baseURL.absoluteString, projectToken: "fleet-target", authorization: "token:fleet-key", allowRemote: false)
        options.devices = 20
        options.duration = 1
        options.rate = 100
        options.switchRate = 5
        let result = try FleetScenario().run(options, progress: Progress(enabled: false))

        for name in ["eventsUnconfirmed", "staleDeliveries", "unmarkedDeliveries", "excessFetches", "trackFailures"] {
            XCTAssertEqual(result.figure("fleet.\(name)")?.value, 0, name)
        }
        XCTAssertNil(result.figure("fleet.lostEvents"))
        let acknowledged = try XCTUnwrap(result.figure("fleet.eventsAcknowledged")).value
        XCTAssertEqual(acknowledged, result.figure("fleet.eventsTracked")?.value)
        XCTAssertEqual(Double(backend.eventsAccepted), acknowledged, "the client's count is what the server stored")
        XCTAssertEqual(result.figure("fleet.devicesLoaded")?.value, 20)
        XCTAssertEqual(result.latencies.map(\.name), FleetScenario.latencyMetrics.filter { $0 != "change-to-callback" })
        XCTAssertTrue(result.notes.contains { $0.contains("not measured: change-to-callback") }, "\(result.notes)")
        XCTAssertEqual(result.configuration["target"], server.baseURL.absoluteString.trimmingSuffix("/"))
        XCTAssertNil(result.configuration["fetchDelay"])
    }

    func testTheMockAnswersFetchesAfterTheFetchDelay() throws {
        var options = BenchOptions()
        options.devices = 5
        options.duration = 0.5
        options.rate = 20
        options.fetchDelayMs = 30
        let result = try FleetScenario().run(options, progress: Progress(enabled: false))
        let fetch = try XCTUnwrap(result.latencies.first { $0.name == "fetch" })
        XCTAssertGreaterThanOrEqual(fetch.p50, 30_000_000, "every fetch waits the delay before its answer")
        XCTAssertEqual(result.configuration["fetchDelay"], "\(Duration.milliseconds(30))")
        XCTAssertEqual(result.configuration["fetchDelayMs"], "30.0")
    }

    private func scratch() -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        return directory.path
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String { hasSuffix(suffix) ? String(dropLast(suffix.count)) : self }
}

/// One device (`--devices 1`): every arrival tracks or switches, so every `track` sample is an
/// event tracked; no generator draws arrivals without a device to give them to.
final class FleetOneDeviceTests: XCTestCase {
    func testEveryTrackSampleIsATrackedEventWithOneDevice() throws {
        var options = BenchOptions()
        options.devices = 1
        options.duration = 1
        options.rate = 100
        options.switchRate = 20
        let result = try FleetScenario().run(options, progress: Progress(enabled: false))
        let track = try XCTUnwrap(result.latencies.first { $0.name == "track" })
        let tracked = try XCTUnwrap(result.figure("fleet.eventsTracked")).value
        let failures = try XCTUnwrap(result.figure("fleet.trackFailures")).value
        XCTAssertEqual(Double(track.count), tracked + failures, "track samples that tracked nothing")
    }
}

/// Stages and thresholds a run cannot honour are usage errors (exit 64) on the command line, not a
/// trap (a schedule too long for the nanosecond clock), a run that never ends (a rate whose gaps
/// fall under the clock's resolution) or a limit judged on clamped samples.
final class FleetUsageErrorTests: XCTestCase {
    func testStagesAndThresholdsOutsideWhatARunCanUseAreUsageErrors() {
        for arguments in [
            ["run", "fleet", "--stages", "20000000000s:1"],
            ["run", "fleet", "--stages", "1s:100000000000000000000"],
            ["run", "fleet", "--threshold", "max(fetch)<120s"],
        ] {
            let out = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-\(UUID().uuidString)").path
            XCTAssertThrowsError(try SegmentsBenchCLI.run(arguments + ["--out", out], registry: ScenarioRegistry())) { error in
                XCTAssertEqual(SegmentsBenchCLI.exitStatus(for: error), 64, "\(arguments)")
            }
        }
    }
}
