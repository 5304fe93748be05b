import SegmentsBenchKit
import XCTest

/// A result of scenario `demo` with one latency, `fetch` (recorded from `recorder`), and `figures`.
func thresholdResult(_ recorder: LatencyRecorder = LatencyRecorder(), figures: [Figure] = []) -> ScenarioResult {
    ScenarioResult(
        scenario: "demo", summary: "", configuration: [:], figures: figures,
        latencies: [recorder.summary("fetch", definition: "a fetch")], allocationsMeasured: false)
}

/// `fetch` samples of `milliseconds` each.
func fetchSamples(_ milliseconds: ClosedRange<Int>) -> LatencyRecorder {
    var recorder = LatencyRecorder()
    for value in milliseconds { recorder.record(UInt64(value) * 1_000_000) }
    return recorder
}

final class RunThresholdTests: XCTestCase {
    private func parse(_ text: String, scenarios: [String] = ["demo"]) throws -> RunThreshold {
        try RunThreshold.parse(text, scenarios: scenarios)
    }

    func testAThresholdParsesStatisticMetricComparisonAndLimit() throws {
        let p99 = try parse("p99(change-to-callback)<500ms")
        XCTAssertEqual(p99.statistic, .percentile(99))
        XCTAssertEqual(p99.scenario, "demo")
        XCTAssertEqual(p99.metric, "change-to-callback")
        XCTAssertEqual(p99.comparison, .below)
        XCTAssertEqual(p99.limit.nanoseconds, 500_000_000)
        let max = try parse("max(fetch)<=2s")
        XCTAssertEqual(max.statistic, .max)
        XCTAssertEqual(max.comparison, .atMost)
        XCTAssertEqual(max.limit.nanoseconds, 2e9)
        XCTAssertEqual(try parse("p99.9(fetch)<250us").statistic, .percentile(99.9))
        XCTAssertEqual(try parse("mean(fetch)<7ns").limit.nanoseconds, 7)
        XCTAssertEqual(try parse("p50(fetch)>1ms").comparison, .above)
        XCTAssertEqual(try parse("p50(fetch)>=1ms").comparison, .atLeast)
    }

    func testAFiguresThresholdTakesANumberInItsUnitOrADuration() throws {
        let rate = try parse("value(demo.producerSweep.producers1.eventsPerSecond)>=2e6")
        XCTAssertEqual(rate.statistic, .value)
        XCTAssertEqual(rate.scenario, "demo")
        XCTAssertEqual(rate.metric, "producerSweep.producers1.eventsPerSecond")
        XCTAssertEqual(rate.comparison, .atLeast)
        XCTAssertEqual(rate.limit, .number(2e6))
        XCTAssertEqual(try parse("value(change)>-0.5").limit, .number(-0.5))
        XCTAssertEqual(try parse("value(firstCallbackP50Ns)<20us").limit.nanoseconds, 20_000)
    }

    /// Spaces, as k6 users write them, are ignored; the threshold keeps its text without them.
    func testSpacesInAThresholdAreIgnored() throws {
        let spaced = try parse(" p99 (fetch) <= 5 ms ")
        XCTAssertEqual(spaced.statistic, .percentile(99))
        XCTAssertEqual(spaced.metric, "fetch")
        XCTAssertEqual(spaced.comparison, .atMost)
        XCTAssertEqual(spaced.limit.nanoseconds, 5_000_000)
        XCTAssertEqual(spaced.text, "p99(fetch)<=5ms", "one setting, however it was spaced")
        XCTAssertEqual(try parse("avg(fetch) < 2s").statistic, .mean)
    }

    func testMalformedThresholdsAreRefusedWithTheReason() {
        let cases: [(String, RunThresholdError)] = [
            ("p99<5ms", .malformed("p99<5ms")),
            ("p99()<5ms", .malformed("p99()<5ms")),
            ("q99(fetch)<5ms", .badStatistic(text: "q99(fetch)<5ms", statistic: "q99")),
            ("p100(fetch)<5ms", .badStatistic(text: "p100(fetch)<5ms", statistic: "p100")),
            ("p99(fetch)=5ms", .badComparison("p99(fetch)=5ms")),
            ("p99(fetch)!5ms", .badComparison("p99(fetch)!5ms")),
            ("p99(fetch)<5", .badLimit(text: "p99(fetch)<5", limit: "5", forFigure: false)),
            ("p99(fetch)<-5ms", .badLimit(text: "p99(fetch)<-5ms", limit: "-5ms", forFigure: false)),
            ("value(rate)>fast", .badLimit(text: "value(rate)>fast", limit: "fast", forFigure: true)),
            ("value(rate)>inf", .badLimit(text: "value(rate)>inf", limit: "inf", forFigure: true)),
            ("value(rate)>nan", .badLimit(text: "value(rate)>nan", limit: "nan", forFigure: true)),
            ("value(rate)>1e999", .badLimit(text: "value(rate)>1e999", limit: "1e999", forFigure: true)),
            ("p99(fetch) = 5 ms", .badComparison("p99(fetch) = 5 ms")),
            ("p99.(fetch)<5ms", .badStatistic(text: "p99.(fetch)<5ms", statistic: "p99.")),
            ("p.5(fetch)<5ms", .badStatistic(text: "p.5(fetch)<5ms", statistic: "p.5")),
            ("p99(cache hit)<5ms", .malformed("p99(cache hit)<5ms")),
            ("p99(fetch)<.ms", .badLimit(text: "p99(fetch)<.ms", limit: ".ms", forFigure: false)),
            ("value(thresholdsFailed)<1", .countOfLimits("value(thresholdsFailed)<1")),
            ("p99(fetch)<5 0ms", .malformed("p99(fetch)<5 0ms")),
        ]
        for (text, expected) in cases {
            XCTAssertThrowsError(try parse(text), text) { error in
                XCTAssertEqual(error as? RunThresholdError, expected, text)
                XCTAssertTrue("\(error)".hasPrefix("--threshold '\(text)'"), "\(error)")
            }
        }
    }

    /// With several scenarios, the metric says whose it is; a bare name would be judged nowhere.
    func testAMetricBelongsToTheScenarioItsNameBeginsWith() throws {
        let suite = ["pull", "fleet"]
        let qualified = try parse("p99(fleet.change-to-callback)<1s", scenarios: suite)
        XCTAssertEqual(qualified.scenario, "fleet")
        XCTAssertEqual(qualified.metric, "change-to-callback")
        XCTAssertEqual(try parse("value(pull.requestsPerMiss)<1", scenarios: suite).scenario, "pull")
        XCTAssertThrowsError(try parse("p99(change-to-callback)<1s", scenarios: suite)) { error in
            XCTAssertEqual(
                error as? RunThresholdError,
                .noScenario(text: "p99(change-to-callback)<1s", metric: "change-to-callback", scenarios: suite))
            XCTAssertTrue("\(error)".contains("pull, fleet"), "\(error)")
        }
        XCTAssertThrowsError(try parse("p99(fleet.)<1s", scenarios: suite), "a scenario's name alone is no metric")
        let alone = try parse("p99(fleet.change-to-callback)<1s", scenarios: ["fleet"])
        XCTAssertEqual(alone.metric, "change-to-callback", "a one-scenario run takes the scenario's name too")
    }

    func testALatencyThresholdComparesItsStatisticWithTheLimit() throws {
        let result = thresholdResult(fetchSamples(1...100))
        let p50 = try parse("p50(fetch)<60ms").evaluate(result)
        XCTAssertTrue(p50.passed, p50.description)
        XCTAssertTrue(p50.measured.hasPrefix("measured 50"), p50.measured)
        XCTAssertFalse(try parse("max(fetch)<50ms").evaluate(result).passed)
        XCTAssertTrue(try parse("max(fetch)<1s").evaluate(result).passed)
        XCTAssertTrue(try parse("p99(fetch)<=100ms").evaluate(result).passed)
        XCTAssertTrue(try parse("p50(fetch)>40ms").evaluate(result).passed)
        XCTAssertFalse(try parse("p50(fetch)>60ms").evaluate(result).passed)
        XCTAssertTrue(try parse("max(fetch)>=100ms").evaluate(result).passed)
        XCTAssertFalse(try parse("max(fetch)>100ms").evaluate(result).passed)
    }

    /// The verdict line shows the measured value in a unit that keeps its digits: 600 ns is not
    /// "0.001 ms", and a value just past a round limit does not read as the limit.
    func testTheMeasuredValueIsShownInAUnitThatFitsIt() throws {
        var fast = LatencyRecorder()
        fast.record(600)
        let quick = try parse("max(fetch)<1ms").evaluate(thresholdResult(fast))
        XCTAssertTrue(quick.description.contains("measured 600 ns"), quick.description)
        var slow = LatencyRecorder()
        slow.record(1_234_000_000)
        let outcome = try parse("max(fetch)<1s").evaluate(thresholdResult(slow))
        XCTAssertTrue(outcome.description.contains("measured 1.234 s"), outcome.description)
        var justOver = LatencyRecorder()
        justOver.record(5_004_000)
        let over = try parse("max(fetch)<5ms").evaluate(thresholdResult(justOver))
        XCTAssertTrue(over.description.contains("FAILED (measured 5.004 ms)"), "a miss must not read as the limit: \(over.description)")
    }

    func testAMetricWithoutSamplesOrNotMeasuredFailsItsThreshold() throws {
        let empty = try parse("p99(fetch)<1s").evaluate(thresholdResult())
        XCTAssertFalse(empty.passed)
        XCTAssertEqual(empty.description, "threshold p99(fetch)<1s: FAILED (no samples)")
        let missing = try parse("p99(fetch-round-trip)<1s").evaluate(thresholdResult(fetchSamples(1...100)))
        XCTAssertFalse(missing.passed)
        XCTAssertTrue(missing.measured.contains("demo reported no latency fetch-round-trip (its latencies: fetch)"), missing.measured)
    }

    /// A latency is named as its `.hgrm` file is: `cache miss (HTTP)` is `cache-miss-http`.
    func testALatencyIsNamedByItsReportFileName() throws {
        var recorder = LatencyRecorder()
        recorder.record(1_000)
        let result = ScenarioResult(
            scenario: "qualified", summary: "", configuration: [:],
            latencies: [recorder.summary("cache miss (HTTP)", definition: "")], allocationsMeasured: false)
        let outcome = try RunThreshold.parse("max(qualified.cache-miss-http)<1ms", scenarios: ["qualified"]).evaluate(result)
        XCTAssertTrue(outcome.passed, outcome.description)
    }

    /// A p99.9 of 50 samples is their maximum under another name: the threshold is not measured
    /// (and fails), as the report shows `—` for it.
    func testAPercentileTheSamplesCannotHoldIsNotMeasured() throws {
        let fifty = thresholdResult(fetchSamples(1...50))
        let outcome = try parse("p99.9(fetch)<60ms").evaluate(fifty)
        XCTAssertFalse(outcome.passed)
        XCTAssertTrue(outcome.description.contains("too few samples: 50 of the 1000 it needs"), outcome.description)
        XCTAssertTrue(try parse("p90(fetch)<60ms").evaluate(fifty).passed, "50 samples hold a p90")
        let p99 = try parse("p99(fetch)<60ms").evaluate(fifty)
        XCTAssertFalse(p99.passed)
        XCTAssertEqual(p99.measured, "too few samples: 50 of the 100 it needs")
        XCTAssertEqual(try parse("p90(fetch)<60ms").evaluate(thresholdResult(fetchSamples(1...5))).measured,
                       "too few samples: 5 of the 10 it needs")
        XCTAssertTrue(try parse("p50(fetch)<60ms").evaluate(thresholdResult(fetchSamples(1...1))).passed,
                      "the median holds from one sample up, as in the report")
    }

    /// `max(…)` judges the largest sample itself (kept exactly), not the top of its histogram bucket.
    func testMaxIsTheLargestSampleNotItsBucketsTop() throws {
        let outcome = try parse("max(fetch)<=100ms").evaluate(thresholdResult(fetchSamples(1...100)))
        XCTAssertTrue(outcome.passed, outcome.description)
        XCTAssertEqual(outcome.measured, "measured 100.0 ms")
    }

    /// The recorder clamps every sample at 60 s: no limit a clamped sample could meet is accepted,
    /// so a run whose latencies were 5 minutes cannot pass.
    func testALimitAClampedSampleCouldMeetIsRefused() throws {
        var recorder = LatencyRecorder()
        recorder.record(300_000_000_000)  // 5 minutes, from an arrival's intended start
        for text in ["max(fetch)<120s", "max(fetch)<=60s", "max(fetch)<60s", "p99(fetch)<=60s", "max(fetch)<=60000ms",
                     "max(fetch)>=60s", "max(fetch)>60s"] {
            let outcome = try? parse(text).evaluate(thresholdResult(recorder))
            XCTAssertNotEqual(outcome?.passed, true, "\(text): \(outcome.map(\.description) ?? "refused")")
        }
        XCTAssertThrowsError(try parse("max(fetch)>=60s"), "only a clamped sample could meet it")
        XCTAssertNoThrow(try parse("max(fetch)>59s"))
        XCTAssertNoThrow(try parse("max(fetch)<60s"), "no clamped sample is under 60 s, as the refusal's hint says")
        XCTAssertNoThrow(try parse("max(fetch)<60000ms"))
    }

    func testAFiguresThresholdComparesItsValueInItsUnit() throws {
        let result = thresholdResult(figures: [
            Figure(name: "demo.eventsPerSecond", value: 2_500_000, unit: "ops/s", summary: ""),
            Figure(name: "demo.firstCallbackP50Ns", value: 17_000, unit: "ns", summary: ""),
            Figure(name: "demo.lagMs", value: 3, unit: "ms", summary: ""),
            Figure(name: "demo.ratio", value: 2.3145, unit: "ratio", summary: ""),
            Figure(name: "demo.broken", value: .nan, unit: "ratio", summary: ""),
            Figure(name: "demo.endless", value: .infinity, unit: "ratio", summary: ""),
        ])
        let rate = try parse("value(demo.eventsPerSecond)>=2e6").evaluate(result)
        XCTAssertTrue(rate.passed, rate.description)
        XCTAssertEqual(rate.measured, "measured 2,500,000 ops/s")
        XCTAssertFalse(try parse("value(eventsPerSecond)>3e6").evaluate(result).passed)
        XCTAssertTrue(try parse("value(firstCallbackP50Ns)<20us").evaluate(result).passed)
        XCTAssertFalse(try parse("value(firstCallbackP50Ns)<17000").evaluate(result).passed, "17,000 ns is not under 17,000")
        XCTAssertTrue(try parse("value(lagMs)<=3ms").evaluate(result).passed, "3 ms in a figure in ms")
        XCTAssertFalse(try parse("value(lagMs)<2500us").evaluate(result).passed)
        let ratio = try parse("value(ratio)<=2.3").evaluate(result)
        XCTAssertFalse(ratio.passed)
        XCTAssertEqual(ratio.measured, "measured 2.3145 ratio", "digits enough to tell it from the limit")
        let wrongUnit = try parse("value(eventsPerSecond)>1ms").evaluate(result)
        XCTAssertFalse(wrongUnit.passed)
        XCTAssertTrue(wrongUnit.measured.contains("demo.eventsPerSecond is in 'ops/s', not time"), wrongUnit.measured)
        let missing = try parse("value(nothing)<1").evaluate(result)
        XCTAssertFalse(missing.passed)
        XCTAssertTrue(missing.measured.contains("demo reported no figure demo.nothing"), missing.measured)
        XCTAssertEqual(try parse("value(broken)<1").evaluate(result).measured, "not measured: demo.broken is not a number")
        XCTAssertFalse(try parse("value(broken)>=1").evaluate(result).passed, "NaN meets no limit")
        XCTAssertFalse(try parse("value(endless)>1").evaluate(result).passed, "an infinite figure was not measured")
    }

    /// Judging adds a note per threshold and a count of the missed ones, which the gate fails.
    func testJudgingARecordsEachVerdictAndCountsTheMissedOnes() throws {
        var result = thresholdResult(fetchSamples(1...100))
        let thresholds = try ["p50(demo.fetch)<60ms", "max(demo.fetch)<1ms", "p99(other.fetch)<1ns"].map {
            try RunThreshold.parse($0, scenarios: ["demo", "other"])
        }
        result.judge(thresholds)
        XCTAssertEqual(result.figure("demo.thresholdsFailed")?.value, 1, "other's threshold is not demo's")
        XCTAssertEqual(result.notes.count, 2)
        XCTAssertTrue(result.notes[0].hasPrefix("threshold p50(demo.fetch)<60ms: passed"), result.notes[0])
        XCTAssertTrue(result.notes[1].hasPrefix("threshold max(demo.fetch)<1ms: FAILED"), result.notes[1])
        XCTAssertEqual(result.configuration["threshold"], "p50(demo.fetch)<60ms max(demo.fetch)<1ms")

        var untouched = thresholdResult()
        untouched.judge([thresholds[2]])
        XCTAssertNil(untouched.figure("demo.thresholdsFailed"), "no threshold of its own: nothing to count")
        XCTAssertTrue(untouched.notes.isEmpty)
    }

    /// A result judged again (`check --threshold` of a report whose run had limits) adds to its
    /// count instead of reporting a second figure of the same name.
    func testJudgingAgainAddsToTheCount() throws {
        var result = thresholdResult(fetchSamples(1...100))
        result.judge([try parse("max(fetch)<1ms")])
        result.judge([try parse("p50(fetch)<1ms"), try parse("p50(fetch)<1s")])
        XCTAssertEqual(result.figures.filter { $0.name == "demo.thresholdsFailed" }.map(\.value), [2])
        XCTAssertEqual(result.notes.count, 3)
        XCTAssertEqual(result.configuration["threshold"], "max(fetch)<1ms p50(fetch)<1ms p50(fetch)<1s")
    }

    /// A decimal limit is the number written, not a product of binary fractions: `<8.3ms` does not
    /// pass a sample of exactly 8.3 ms (8.3 × 10⁶ is 8,300,000.000000001 in binary), and a figure of
    /// 4,100,000 ns meets `<=4.1ms`.
    func testADecimalLimitAtTheMeasuredValueJudgesItExactly() throws {
        var exact = LatencyRecorder()
        exact.record(8_300_000)
        let result = thresholdResult(exact, figures: [
            Figure(name: "demo.inNs", value: 4_100_000, unit: "ns", summary: ""),
            Figure(name: "demo.inUs", value: 4_100, unit: "µs", summary: ""),
            Figure(name: "demo.inS", value: 0.0041, unit: "s", summary: ""),
            Figure(name: "demo.stampNs", value: 8_200, unit: "ns", summary: ""),
        ])
        XCTAssertFalse(try parse("max(fetch)<8.3ms").evaluate(result).passed, "8.3 ms is not under 8.3 ms")
        XCTAssertTrue(try parse("max(fetch)>=8.3ms").evaluate(result).passed, "8.3 ms is at least 8.3 ms")
        XCTAssertTrue(try parse("max(fetch)<=8.3ms").evaluate(result).passed)
        for text in ["value(inNs)<=4.1ms", "value(inUs)<=4.1ms", "value(inS)<=4.1ms", "value(inNs)>=4.1ms", "value(inS)>=4.1ms",
                     "value(stampNs)>=8.2us", "value(stampNs)<=8.2us"] {
            let outcome = try parse(text).evaluate(result)
            XCTAssertTrue(outcome.passed, outcome.description)
        }
        XCTAssertEqual(try parse("p99(fetch)<8.3ms").limit.nanoseconds, 8_300_000)
    }

    /// A count that is no count (a hand-made or corrupt report) is left as it is, so that the gate
    /// still calls it a harness error; a missed limit does not turn -1 into a passing 0.
    func testJudgingLeavesACountThatIsNoCountAlone() throws {
        var result = thresholdResult(fetchSamples(1...100), figures: [
            Figure(name: "demo.thresholdsFailed", value: -1, unit: "count", summary: ""),
        ])
        result.judge([try parse("max(fetch)<1ms")])
        XCTAssertEqual(result.figure("demo.thresholdsFailed")?.value, -1)
    }

    /// In a one-scenario run, a metric that names another scenario of the registry is refused
    /// before the run, not judged "not measured" after it; of two scenario names that both begin
    /// the metric, the longer owns it.
    func testAMetricNamingAnotherScenarioIsRefusedAndTheLongestNameOwnsIt() throws {
        XCTAssertThrowsError(try RunThreshold.parse("p99(fleet.change-to-callback)<5ms", scenarios: ["pull"], known: ["pull", "fleet"])) { error in
            XCTAssertEqual(error as? RunThresholdError, .notRun(text: "p99(fleet.change-to-callback)<5ms", scenario: "fleet", running: "pull"))
        }
        XCTAssertEqual(try RunThreshold.parse("value(pull.x.rate)>5", scenarios: ["pull", "pull.x"]).scenario, "pull.x")
        XCTAssertEqual(try RunThreshold.parse("p99(fetch)<5ms", scenarios: ["pull"], known: ["pull", "fleet"]).metric, "fetch")
    }

    /// `mean` is the samples' mean, not their median: one slow sample in a hundred moves it.
    func testMeanIsTheMeanOfTheSamples() throws {
        var skewed = fetchSamples(1...99)
        skewed.record(10_000_000_000)
        let result = thresholdResult(skewed)
        let mean = try parse("mean(fetch)<100ms").evaluate(result)
        XCTAssertFalse(mean.passed, mean.description)
        XCTAssertTrue(mean.measured.hasPrefix("measured 149"), mean.measured)
        XCTAssertTrue(try parse("p50(fetch)<100ms").evaluate(result).passed)
        XCTAssertEqual(try parse("avg(fetch)<100ms").statistic, .mean)
    }

    /// `min` is the smallest sample, `med` the median, as k6 names them.
    func testMinAndMedAreTheSmallestSampleAndTheMedian() throws {
        let result = thresholdResult(fetchSamples(3...100))
        let min = try parse("min(fetch)>=3ms").evaluate(result)
        XCTAssertTrue(min.passed, min.description)
        XCTAssertEqual(min.measured, "measured 3.000 ms")
        XCTAssertFalse(try parse("min(fetch)>3ms").evaluate(result).passed)
        XCTAssertEqual(try parse("med(fetch)<1s").statistic, .percentile(50))
    }

    /// Two latencies whose names give one file name are refused, not judged by whichever came first.
    func testTwoLatenciesNamedAlikeAreNotJudged() throws {
        var fast = LatencyRecorder()
        fast.record(1_000)
        var slow = LatencyRecorder()
        slow.record(9_000_000_000)
        let result = ScenarioResult(
            scenario: "demo", summary: "", configuration: [:],
            latencies: [fast.summary("cache hit", definition: ""), slow.summary("cache-hit", definition: "")], allocationsMeasured: false)
        let outcome = try parse("max(cache-hit)<1ms").evaluate(result)
        XCTAssertFalse(outcome.passed)
        XCTAssertEqual(outcome.measured, "not measured: demo reported more than one latency named cache-hit")
    }
}
