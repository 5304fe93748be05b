import Foundation
import XCTest

@testable import SegmentsBenchKit

#if canImport(FoundationXML)
import FoundationXML
#endif

/// What an SVG document holds, read with a real XML parser: the root's attributes, every element
/// name and every piece of text.
private final class SVGContents: NSObject, XMLParserDelegate {
    var rootName: String?
    var rootAttributes: [String: String] = [:]
    var elements: [String] = []
    var texts: [String] = []
    private var currentText = ""

    static func parse(_ data: Data) throws -> SVGContents {
        let contents = SVGContents()
        let parser = XMLParser(data: data)
        parser.delegate = contents
        guard parser.parse() else {
            throw parser.parserError ?? NSError(domain: "SVGContents", code: 1)
        }
        return contents
    }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        if rootName == nil {
            rootName = elementName
            rootAttributes = attributes
        }
        elements.append(elementName)
        currentText = ""
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        currentText += string
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        let text = currentText.trimmingCharacters(in: .whitespacesAndNewlines)
        if !text.isEmpty { texts.append(text) }
        currentText = ""
    }
}

final class ReportSVGTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("ReportSVGTests-\(UUID().uuidString)")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    private func writeAndParse(_ name: String, report: BenchReport = SyntheticReport.report()) throws -> SVGContents {
        try ReportWriter(directory: directory).write(report)
        return try SVGContents.parse(Data(contentsOf: directory.appendingPathComponent(name)))
    }

    func testEverySVGIsStandaloneWellFormedXML() throws {
        let written = try ReportWriter(directory: directory).write(SyntheticReport.report())
        let svgs = written.filter { $0.pathExtension == "svg" }
        XCTAssertEqual(svgs.count, 5)
        for url in svgs {
            let data = try Data(contentsOf: url)
            let contents = try SVGContents.parse(data)
            XCTAssertEqual(contents.rootName, "svg", url.lastPathComponent)
            XCTAssertEqual(contents.rootAttributes["xmlns"], "http://www.w3.org/2000/svg", url.lastPathComponent)
            let width = try XCTUnwrap(contents.rootAttributes["width"].flatMap(Double.init), url.lastPathComponent)
            let height = try XCTUnwrap(contents.rootAttributes["height"].flatMap(Double.init), url.lastPathComponent)
            XCTAssertEqual(contents.rootAttributes["viewBox"], "0 0 \(SVGBuilder.coordinate(width)) \(SVGBuilder.coordinate(height))")
            XCTAssertTrue(contents.elements.contains("title"), url.lastPathComponent)
            XCTAssertTrue(String(decoding: data, as: UTF8.self).contains("fill=\"#ffffff\""), "white background in \(url.lastPathComponent)")
        }
    }

    func testPercentileChartHasACurveAndLegendEntryPerLatency() throws {
        let contents = try writeAndParse("tracking-storm.percentiles.svg")
        XCTAssertTrue(contents.texts.contains("trackEvent call"))
        XCTAssertTrue(contents.texts.contains("fetch round trip (CO-corrected)"))
        XCTAssertEqual(contents.elements.filter { $0 == "polyline" }.count, 2)
        XCTAssertTrue(contents.texts.contains("tracking-storm: latency by percentile"))
    }

    func testPercentileChartLabelsTheNinesAndTimeUnits() throws {
        let contents = try writeAndParse("tracking-storm.percentiles.svg")
        for label in ["50%", "90%", "99%", "99.9%", "99.99%"] {
            XCTAssertTrue(contents.texts.contains(label), "missing x label \(label)")
        }
        // trackEvent spans ~100 ns to ~60 µs, fetch up to ~9 ms: decades labelled in human units.
        for label in ["100 ns", "1 µs", "10 µs", "1 ms"] {
            XCTAssertTrue(contents.texts.contains(label), "missing y label \(label)")
        }
    }

    func testSeriesChartHasALineAndLegendEntryPerSeries() throws {
        let contents = try writeAndParse("fanout-latency.svg")
        XCTAssertTrue(contents.texts.contains("p50"))
        XCTAssertTrue(contents.texts.contains("p99"))
        XCTAssertTrue(contents.texts.contains("callbacks"))
        XCTAssertTrue(contents.texts.contains("latency (ns)"))
        XCTAssertEqual(contents.elements.filter { $0 == "polyline" }.count, 2)
        // Five points per series, each with a marker (plus a marker per legend entry).
        XCTAssertEqual(contents.elements.filter { $0 == "circle" }.count, 12)
    }

    func testAxesSpanningMoreThanTwoDecadesAreLogarithmic() throws {
        let contents = try writeAndParse("fanout-latency.svg")
        // x from 1 to 10,000 callbacks: log, ticks at the data values. y from 803 ns to 92 µs: log too.
        for label in ["1", "10", "100", "1k", "10k"] {
            XCTAssertTrue(contents.texts.contains(label), "missing x tick \(label)")
        }
        XCTAssertTrue(contents.texts.contains { $0.contains("(log x, log y)") })
    }

    func testNarrowRangesStayLinear() {
        let series = ChartSeries(
            chart: "flat", label: "p50", xLabel: "callbacks", yLabel: "latency (ns)",
            points: (1...20).map { .init(x: Double($0), y: 1_000 + Double($0)) })
        let svg = ReportCharts().seriesChart(named: "flat", series: [("s", series)])
        XCTAssertFalse(svg.contains("log x"))
        XCTAssertFalse(svg.contains("log y"))
        // y starts at zero on a linear axis.
        XCTAssertTrue(svg.contains(">0 ns</text>"))
    }

    func testSinglePointSeriesAreDrawnAsLabelledBars() throws {
        let contents = try writeAndParse("peers.svg")
        XCTAssertEqual(contents.elements.filter { $0 == "polyline" }.count, 0)
        for label in ["RealtimeSegments", "polling SDK", "naive <&> SDK"] {
            XCTAssertGreaterThanOrEqual(contents.texts.filter { $0 == label }.count, 2, "bar label and legend entry for \(label)")
        }
        for value in ["1.50 µs", "250 ms", "4.00 ms"] {
            XCTAssertTrue(contents.texts.contains(value), "missing value label \(value)")
        }
        XCTAssertTrue(contents.texts.contains("listeners: 100 · customer-switch"))
    }

    func testAllocationChartHasABarPerAllocationFigure() throws {
        let contents = try writeAndParse("allocations.svg")
        XCTAssertTrue(contents.texts.contains("tracking-storm.allocsPerEvent"))
        XCTAssertTrue(contents.texts.contains("customer-switch.allocsPerSwitch"))
        XCTAssertTrue(contents.texts.contains("3.25 allocs/op"))
        XCTAssertTrue(contents.texts.contains("41 allocs/switch"))
        XCTAssertFalse(contents.texts.contains("tracking-storm.lostEvents"))
        // Legend: one color per scenario.
        XCTAssertTrue(contents.texts.contains("tracking-storm"))
        XCTAssertTrue(contents.texts.contains("customer-switch"))
    }

    func testNoAllocationChartWithoutAllocationFigures() throws {
        var scenario = SyntheticReport.customerSwitch
        scenario.figures.removeAll { $0.unit.hasPrefix("allocs") }
        let written = try ReportWriter(directory: directory).write(SyntheticReport.report([scenario]))
        XCTAssertFalse(written.map(\.lastPathComponent).contains("allocations.svg"))
        XCTAssertFalse(try String(contentsOf: directory.appendingPathComponent("index.html"), encoding: .utf8).contains("allocations.svg"))
    }

    func testTextIsEscapedInSVG() throws {
        var scenario = SyntheticReport.customerSwitch
        scenario.scenario = "a<&>b"
        scenario.series = [ChartSeries(
            chart: "chart <&> \"quoted\"", label: "line <&>", xLabel: "x & y", yLabel: "<y>",
            points: [.init(x: 1, y: 1), .init(x: 2, y: 4)])]
        let written = try ReportWriter(directory: directory).write(SyntheticReport.report([scenario]))
        let chart = try XCTUnwrap(written.first { $0.lastPathComponent == "chart-quoted.svg" })
        let text = try String(contentsOf: chart, encoding: .utf8)
        XCTAssertTrue(text.contains("line &lt;&amp;&gt;"))
        XCTAssertFalse(text.contains("<&>"))
        let contents = try SVGContents.parse(Data(text.utf8))
        XCTAssertTrue(contents.texts.contains("line <&>"))
        XCTAssertTrue(contents.texts.contains("chart <&> \"quoted\""))
        let percentiles = try SVGContents.parse(Data(contentsOf: directory.appendingPathComponent("a-b.percentiles.svg")))
        XCTAssertTrue(percentiles.texts.contains("a<&>b: latency by percentile"))
    }

    func testEmptySeriesChartStillRendersWithANote() throws {
        let series = ChartSeries(chart: "empty", label: "nothing", xLabel: "x", yLabel: "y", points: [])
        let svg = ReportCharts().seriesChart(named: "empty", series: [("s", series), ("s", series)])
        let contents = try SVGContents.parse(Data(svg.utf8))
        XCTAssertTrue(contents.texts.contains("no data"))
    }

    func testLogarithmicAxisLabelsDecadesAndMidpointsOnNarrowRanges() {
        let axis = ChartAxis.logarithmic(title: "t", values: [150, 40_000], format: ReportFormat.compact)
        XCTAssertEqual(axis.lower, 100)
        XCTAssertEqual(axis.upper, 100_000)
        XCTAssertEqual(axis.ticks.filter { !$0.label.isEmpty }.map(\.label),
                       ["100", "200", "500", "1k", "2k", "5k", "10k", "20k", "50k", "100k"])
    }

    func testLinearAxisUsesNiceSteps() {
        let axis = ChartAxis.linear(title: "t", values: [3, 87], includeZero: true, format: ReportFormat.compact)
        XCTAssertEqual(axis.lower, 0)
        XCTAssertEqual(axis.upper, 100)
        XCTAssertEqual(axis.ticks.map(\.label), ["0", "20", "40", "60", "80", "100"])
    }

    /// Values whose span overflows a Double (a merged report's ±1e308) still give a few ticks: the
    /// span read as infinite made the step 1, and the tick loop ran from −1e308 up by ones for ever.
    func testALinearAxisOverValuesWhoseSpanOverflowsEnds() {
        for values in [[1e308, -1e308], [1.5e308], [-1.7e308, 1.7e308, 0]] {
            let axis = ChartAxis.linear(title: "t", values: values, includeZero: true, format: ReportFormat.compact)
            XCTAssertGreaterThan(axis.ticks.count, 1, "\(values)")
            XCTAssertLessThanOrEqual(axis.ticks.count, 12, "\(values)")
            XCTAssertTrue(axis.ticks.allSatisfy { $0.value.isFinite }, "\(values)")
            // The points still spread over the axis: its width overflowed, and every point sat at 0.
            XCTAssertEqual(axis.fraction(of: axis.lower), 0, accuracy: 1e-9, "\(values)")
            XCTAssertEqual(axis.fraction(of: axis.upper), 1, accuracy: 1e-9, "\(values)")
        }
    }
}
