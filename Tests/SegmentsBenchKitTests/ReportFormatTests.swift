import XCTest

@testable import SegmentsBenchKit

final class ReportFormatTests: XCTestCase {
    func testHumanDurationPicksTheLargestUnitWithThreeSignificantDigits() {
        XCTAssertEqual(ReportFormat.humanDuration(ns: 0), "0 ns")
        XCTAssertEqual(ReportFormat.humanDuration(ns: 142), "142 ns")
        XCTAssertEqual(ReportFormat.humanDuration(ns: 3.5), "3.50 ns")
        XCTAssertEqual(ReportFormat.humanDuration(ns: 1_420), "1.42 µs")
        XCTAssertEqual(ReportFormat.humanDuration(ns: 14_250), "14.3 µs")
        XCTAssertEqual(ReportFormat.humanDuration(ns: 142_000), "142 µs")
        XCTAssertEqual(ReportFormat.humanDuration(ns: 1_200_000), "1.20 ms")
        XCTAssertEqual(ReportFormat.humanDuration(ns: 2_500_000_000), "2.50 s")
        XCTAssertEqual(ReportFormat.humanDuration(ns: 3_600e9), "3,600 s")
    }

    func testHumanDurationRoundsIntoTheNextUnit() {
        XCTAssertEqual(ReportFormat.humanDuration(ns: 999.7), "1.00 µs")
        XCTAssertEqual(ReportFormat.humanDuration(ns: 999_800), "1.00 ms")
    }

    func testHumanDurationOfNonFiniteOrNegativeValues() {
        XCTAssertEqual(ReportFormat.humanDuration(ns: .nan), "n/a")
        XCTAssertEqual(ReportFormat.humanDuration(ns: .infinity), "n/a")
        XCTAssertEqual(ReportFormat.humanDuration(ns: -1_500), "-1.50 µs")
    }

    func testFigureValuesCarryTheirUnit() {
        XCTAssertEqual(ReportFormat.value(3.25, unit: "allocs/op"), "3.25 allocs/op")
        XCTAssertEqual(ReportFormat.value(3, unit: "allocs/op"), "3 allocs/op")
        XCTAssertEqual(ReportFormat.value(20_000, unit: "count"), "20,000")
        XCTAssertEqual(ReportFormat.value(1.254, unit: "ratio"), "1.25×")
        XCTAssertEqual(ReportFormat.value(1_536, unit: "bytes"), "1.50 KiB")
        XCTAssertEqual(ReportFormat.value(512, unit: "bytes"), "512 B")
        XCTAssertEqual(ReportFormat.value(12_345.6, unit: "ops/s"), "12,346 ops/s")
        XCTAssertEqual(ReportFormat.value(0.0123, unit: "ratio"), "0.0123×")
        XCTAssertEqual(ReportFormat.value(1_500, unit: "ns"), "1.50 µs")
    }

    func testGateRulesInWords() {
        XCTAssertEqual(ReportFormat.describe(nil, unit: "ns"), "reported")
        XCTAssertEqual(ReportFormat.describe(.zero, unit: "count"), "must be 0")
        XCTAssertEqual(ReportFormat.describe(.mustEqual(3), unit: "count"), "must be 3")
        XCTAssertEqual(ReportFormat.describe(.atMost(1), unit: "ratio"), "at most 1")
        XCTAssertEqual(ReportFormat.describe(.allocations, unit: "allocs/op"), "≤ baseline +5% +0.5")
        XCTAssertEqual(ReportFormat.describe(.lowerIsBetter(relative: 1.0, absolute: 0.5), unit: "ratio"), "≤ baseline +100% +0.5")
        XCTAssertEqual(ReportFormat.describe(.latencyRatio, unit: "ratio"), "≤ baseline +200% +1")
        XCTAssertEqual(ReportFormat.describe(.lowerIsBetter(relative: 0, absolute: 500), unit: "ns"), "≤ baseline +500 ns")
        XCTAssertEqual(ReportFormat.describe(.higherIsBetter(relative: 0.1, absolute: 2), unit: "ops/s"), "≥ baseline -10% -2")
    }

    func testCompactNumbersForAxisTicks() {
        XCTAssertEqual(ReportFormat.compact(0), "0")
        XCTAssertEqual(ReportFormat.compact(0.25), "0.25")
        XCTAssertEqual(ReportFormat.compact(500), "500")
        XCTAssertEqual(ReportFormat.compact(2_500), "2.5k")
        XCTAssertEqual(ReportFormat.compact(10_000), "10k")
        XCTAssertEqual(ReportFormat.compact(1_200_000), "1.2M")
    }

    func testSlugsAreLowercaseLettersDigitsAndDashes() {
        XCTAssertEqual(ReportFormat.slug("trackEvent call"), "trackevent-call")
        XCTAssertEqual(ReportFormat.slug("../../etc/passwd"), "etc-passwd")
        XCTAssertEqual(ReportFormat.slug("p99.9 (µs)"), "p99-9-s")
        XCTAssertEqual(ReportFormat.slug("…"), "unnamed")
    }

    func testMarkupEscaping() {
        XCTAssertEqual(MarkupEscaping.xml("a <b> & \"c\" 'd'\u{1}"), "a &lt;b&gt; &amp; &quot;c&quot; &#39;d&#39;")
        XCTAssertEqual(MarkupEscaping.htmlProse("run `a<b>` & go"), "run <code>a&lt;b&gt;</code> &amp; go")
        XCTAssertEqual(MarkupEscaping.markdownProse("keep `x<y>` but not <y>"), "keep `x<y>` but not &lt;y&gt;")
        XCTAssertEqual(MarkupEscaping.markdownCell("a | b\nc"), "a \\| b c")
    }
}
