import SegmentsBenchKit

/// `my-scenario`: calls a callback of this package (a running checksum) as fast as it can for
/// `--duration` seconds, timing every call and checking every answer.
struct ChecksumCallbackScenario: Scenario {
    let name = "my-scenario"
    let simulates = "An app callback that folds each value into a running checksum"
    let measures = "the callback's latency per call (as a ratio to the recorder's own cost) and wrong answers"
    let honouredOptions: Set<BenchOptionName> = [.duration]

    /// The callback under test.
    static func checksum(_ running: UInt64, _ value: UInt64) -> UInt64 { (running &* 31) &+ value }

    func run(_ options: BenchOptions, progress: Progress) throws -> ScenarioResult {
        let seconds = options.duration(default: 3)
        let floor = LatencyRecorder.measureOwnOverhead()
        progress.say(String(format: "%.1f s of calls (recorder floor %.1f ns)", seconds, floor))
        var recorder = LatencyRecorder()
        var running: UInt64 = 0
        var expected: UInt64 = 0
        var wrong = 0
        var calls: UInt64 = 0
        let end = monotonicNanoseconds() + UInt64(seconds * 1e9)
        while monotonicNanoseconds() < end {
            for _ in 0..<1_000 {
                let before = monotonicNanoseconds()
                running = Self.checksum(running, calls)
                recorder.record(monotonicNanoseconds() &- before)
                expected = (expected &* 31) &+ calls
                if running != expected { wrong += 1 }
                calls += 1
            }
        }
        blackHole(running)
        let latency = recorder.summary("my-scenario.call", definition: "one checksum callback call, clock reads included")
        return ScenarioResult(
            scenario: name, summary: "\(simulates). Measures \(measures).",
            configuration: options.configuration(honouring: honouredOptions).merging(["duration": "\(seconds)"]) { $1 },
            figures: [
                Figure(name: "my-scenario.calls", value: Double(calls), unit: "count", summary: "callback calls made"),
                Figure(name: "my-scenario.wrongAnswers", value: Double(wrong), unit: "count", gate: .zero,
                       summary: "calls whose checksum differs from the one computed alongside"),
                Figure(name: "my-scenario.p50OverFloor", value: Double(latency.p50) / max(floor, 1), unit: "ratio",
                       gate: .latencyRatio, summary: "median call latency over the recorder's own cost"),
            ],
            latencies: [latency], allocationsMeasured: false)
    }
}
