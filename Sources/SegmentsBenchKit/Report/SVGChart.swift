import Foundation

/// The report's chart style and its two chart builders, a line chart and a horizontal bar chart,
/// written as standalone SVG by hand (no dependencies).
///
/// Output is deterministic (same input, same bytes: coordinates are rounded to 0.1 px and nothing
/// depends on the locale or the clock), so charts can be compared as text. Every chart has a white
/// background, a title, labelled axes with gridlines and a legend, so that it reads the same in a
/// browser, on GitHub in dark mode and converted to PNG. Text widths are estimated (no font
/// metrics on a server), generously, for DejaVu Sans, the widest of the listed fonts.
struct SVGChart {
    /// One line of a line chart.
    struct Line {
        var label: String
        var points: [ChartSeries.Point]
        /// Draws a circle on every point: for measured series with a few points. Dense curves, such
        /// as percentile distributions, are clearer without.
        var showsMarkers: Bool
    }

    /// A line chart: one or more lines over two axes.
    struct LineChart {
        var title: String
        var subtitle: String?
        var x: ChartAxis
        var y: ChartAxis
        var lines: [Line]
        /// Writes each point's y value next to it, for charts with a handful of points, where the
        /// number matters more than the slope.
        var labelsPoints: Bool
        /// Formats a y value for a point label.
        var formatY: (Double) -> String
    }

    /// One bar of a bar chart.
    struct Bar {
        var label: String
        var value: Double
        /// The value as printed at the end of the bar, with its unit.
        var valueText: String
        /// Index into the palette; bars of one group share it.
        var colorIndex: Int
    }

    /// A horizontal bar chart: one bar per row, labels on the left, values at the bars' ends.
    struct BarChart {
        var title: String
        var subtitle: String?
        var valueAxis: ChartAxis
        var bars: [Bar]
        /// What the colors mean.
        var legend: [(label: String, colorIndex: Int)]
    }

    /// Total width of every chart, in px.
    var width = 820.0
    var plotHeight = 340.0
    var fontFamily = "DejaVu Sans, Verdana, Helvetica, Arial, sans-serif"
    var fontSize = 12.0
    var titleSize = 16.0
    var textColor = "#222222"
    var axisColor = "#444444"
    var gridColor = "#d9d9d9"
    var minorGridColor = "#efefef"

    /// Okabe–Ito colors, distinguishable with the common color-vision deficiencies and dark enough
    /// on white (their yellow is left out for that reason). Beyond seven lines, colors repeat with a
    /// dash pattern.
    static let palette = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#555555"]
    private static let dashes = ["", "7 4", "2 3", "10 3 2 3"]

    func color(_ index: Int) -> String { Self.palette[index % Self.palette.count] }

    func dash(_ index: Int) -> String { Self.dashes[(index / Self.palette.count) % Self.dashes.count] }

    /// Estimated width of `text` in px at `size` (DejaVu Sans averages about 0.6 em per character).
    func textWidth(_ text: String, size: Double? = nil) -> Double {
        Double(text.count) * (size ?? fontSize) * 0.62
    }

    // MARK: Line chart

    /// Renders `chart` as a standalone SVG document.
    func render(_ chart: LineChart) -> String {
        let yLabels = chart.y.ticks.map(\.label).filter { !$0.isEmpty }
        let yLabelWidth = yLabels.map { textWidth($0) }.max() ?? 0
        let plotLeft = 16 + fontSize + 12 + yLabelWidth + 8
        let plotRight = width - 28
        let plotTop = 24 + titleSize + (chart.subtitle == nil ? 0 : fontSize + 8) + 16
        let plotBottom = plotTop + plotHeight
        let legend = legendLayout(
            chart.lines.indices.map { (chart.lines[$0].label, $0) }, top: plotBottom + 8 + fontSize + 10 + fontSize + 16,
            swatch: chart.lines.contains(where: \.showsMarkers) ? .lineWithMarker : .line)
        let height = legend.bottom + 16

        var svg = SVGBuilder(width: width, height: height, title: chart.title, fontFamily: fontFamily, fontSize: fontSize)
        header(&svg, title: chart.title, subtitle: chart.subtitle)

        func px(_ value: Double) -> Double { plotLeft + chart.x.fraction(of: value) * (plotRight - plotLeft) }
        func py(_ value: Double) -> Double { plotBottom - chart.y.fraction(of: value) * (plotBottom - plotTop) }

        // Gridlines under everything, then the axes' frame, then the data.
        svg.open("g", ["class": "grid", "stroke-width": "1", "fill": "none"])
        for tick in chart.x.ticks {
            let x = px(tick.value)
            svg.line(x, plotTop, x, plotBottom, stroke: tick.label.isEmpty ? minorGridColor : gridColor)
        }
        for tick in chart.y.ticks {
            let y = py(tick.value)
            svg.line(plotLeft, y, plotRight, y, stroke: tick.label.isEmpty ? minorGridColor : gridColor)
        }
        svg.close("g")
        svg.element("rect", [
            "x": f(plotLeft), "y": f(plotTop), "width": f(plotRight - plotLeft), "height": f(plotBottom - plotTop),
            "fill": "none", "stroke": axisColor, "stroke-width": "1",
        ])

        // Tick labels, dropping any that would overlap the previous one (crowded data-valued ticks).
        svg.open("g", ["class": "x-ticks", "fill": textColor, "text-anchor": "middle"])
        var lastRight = -Double.infinity
        for tick in chart.x.ticks.sorted(by: { px($0.value) < px($1.value) }) where !tick.label.isEmpty {
            let x = px(tick.value)
            let half = textWidth(tick.label) / 2
            guard x - half > lastRight + 4 else { continue }
            lastRight = x + half
            svg.line(x, plotBottom, x, plotBottom + 4, stroke: axisColor)
            svg.text(tick.label, x: x, y: plotBottom + 8 + fontSize)
        }
        svg.close("g")
        svg.open("g", ["class": "y-ticks", "fill": textColor, "text-anchor": "end"])
        var lastTop = Double.infinity
        for tick in chart.y.ticks.sorted(by: { py($0.value) > py($1.value) }) where !tick.label.isEmpty {
            let y = py(tick.value)
            guard y + fontSize / 2 < lastTop - 2 else { continue }
            lastTop = y - fontSize / 2
            svg.line(plotLeft - 4, y, plotLeft, y, stroke: axisColor)
            svg.text(tick.label, x: plotLeft - 7, y: y + fontSize * 0.35)
        }
        svg.close("g")
        axisTitles(&svg, x: chart.x.title, y: chart.y.title, plotLeft: plotLeft, plotRight: plotRight,
                   plotTop: plotTop, plotBottom: plotBottom)

        svg.raw("<defs><clipPath id=\"plot-area\"><rect x=\"\(f(plotLeft))\" y=\"\(f(plotTop))\" width=\"\(f(plotRight - plotLeft))\" height=\"\(f(plotBottom - plotTop))\"/></clipPath></defs>")
        svg.open("g", ["class": "data", "clip-path": "url(#plot-area)"])
        for (index, line) in chart.lines.enumerated() {
            let points = line.points.filter { chart.x.canShow($0.x) && chart.y.canShow($0.y) }
            guard !points.isEmpty else { continue }
            var attributes = [
                "fill": "none", "stroke": color(index), "stroke-width": "2", "stroke-linejoin": "round",
                "stroke-linecap": "round",
                "points": points.map { "\(f(px($0.x))),\(f(py($0.y)))" }.joined(separator: " "),
            ]
            if !dash(index).isEmpty { attributes["stroke-dasharray"] = dash(index) }
            if points.count > 1 { svg.element("polyline", attributes) }
            if line.showsMarkers || points.count == 1 {
                for point in points {
                    svg.element("circle", [
                        "cx": f(px(point.x)), "cy": f(py(point.y)), "r": "3.5", "fill": color(index),
                        "stroke": "#ffffff", "stroke-width": "1",
                    ])
                }
            }
        }
        svg.close("g")
        if chart.labelsPoints {
            // Outside the clip path, so that a label above the highest point stays whole. A white
            // outline keeps labels readable where they cross gridlines or other lines.
            svg.open("g", [
                "class": "point-labels", "text-anchor": "middle", "font-size": f(fontSize - 1),
                "stroke": "#ffffff", "stroke-width": "3", "paint-order": "stroke", "stroke-linejoin": "round",
            ])
            // Where points crowd (small x values on a linear axis), a label that would overlap one
            // already placed is left out: the point's marker stays, and its neighbours stay legible.
            var placed: [(left: Double, right: Double, top: Double, bottom: Double)] = []
            for (index, line) in chart.lines.enumerated() {
                for point in line.points where chart.x.canShow(point.x) && chart.y.canShow(point.y) {
                    let label = chart.formatY(point.y)
                    let x = px(point.x)
                    // Above the point, or below it where above would cross the plot's top edge.
                    let above = py(point.y) - 8
                    let baseline = above - fontSize < plotTop + 2 ? py(point.y) + 8 + fontSize : above
                    let half = textWidth(label, size: fontSize - 1) / 2
                    let box = (left: x - half - 2, right: x + half + 2, top: baseline - fontSize, bottom: baseline + 2)
                    guard !placed.contains(where: { $0.left < box.right && box.left < $0.right && $0.top < box.bottom && box.top < $0.bottom })
                    else { continue }
                    placed.append(box)
                    svg.text(label, x: x, y: baseline, fill: color(index))
                }
            }
            svg.close("g")
        }
        if chart.lines.allSatisfy({ $0.points.isEmpty }) {
            svg.text("no data", x: (plotLeft + plotRight) / 2, y: (plotTop + plotBottom) / 2, anchor: "middle", fill: "#888888")
        }
        drawLegend(&svg, legend)
        return svg.finish()
    }

    // MARK: Bar chart

    /// Renders `chart` as a standalone SVG document.
    func render(_ chart: BarChart) -> String {
        let rowHeight = 28.0
        let barHeight = 18.0
        let maxLabelWidth = 330.0
        let labelWidth = min(chart.bars.map { textWidth($0.label) }.max() ?? 0, maxLabelWidth)
        let valueWidth = chart.bars.map { textWidth($0.valueText) }.max() ?? 0
        let plotLeft = 16 + labelWidth + 12
        // Room on the right for the longest bar's value label.
        let plotRight = width - 20 - valueWidth - 8
        let plotTop = 24 + titleSize + (chart.subtitle == nil ? 0 : fontSize + 8) + 16
        let plotBottom = plotTop + max(Double(chart.bars.count), 1) * rowHeight + 6
        let legend = legendLayout(chart.legend.map { ($0.label, $0.colorIndex) }, top: plotBottom + 8 + fontSize + 10 + fontSize + 16, swatch: .box)
        let height = legend.bottom + 16

        var svg = SVGBuilder(width: width, height: height, title: chart.title, fontFamily: fontFamily, fontSize: fontSize)
        header(&svg, title: chart.title, subtitle: chart.subtitle)
        func px(_ value: Double) -> Double { plotLeft + chart.valueAxis.fraction(of: value) * (plotRight - plotLeft) }

        svg.open("g", ["class": "grid", "stroke-width": "1", "fill": "none"])
        for tick in chart.valueAxis.ticks {
            svg.line(px(tick.value), plotTop, px(tick.value), plotBottom, stroke: gridColor)
        }
        svg.close("g")
        svg.open("g", ["class": "x-ticks", "fill": textColor, "text-anchor": "middle"])
        var lastRight = -Double.infinity
        for tick in chart.valueAxis.ticks where !tick.label.isEmpty {
            let x = px(tick.value)
            let half = textWidth(tick.label) / 2
            guard x - half > lastRight + 4 else { continue }
            lastRight = x + half
            svg.line(x, plotBottom, x, plotBottom + 4, stroke: axisColor)
            svg.text(tick.label, x: x, y: plotBottom + 8 + fontSize)
        }
        svg.close("g")

        let zero = px(max(chart.valueAxis.lower, min(0, chart.valueAxis.upper)))
        svg.open("g", ["class": "bars"])
        for (row, bar) in chart.bars.enumerated() {
            let top = plotTop + 6 + Double(row) * rowHeight
            let middle = top + barHeight / 2
            let label = truncated(bar.label, toWidth: maxLabelWidth)
            svg.textWithTooltip(label, tooltip: bar.label, x: plotLeft - 8, y: middle + fontSize * 0.35, anchor: "end", fill: textColor)
            var end = zero
            if bar.value.isFinite {
                end = px(bar.value)
                // A non-zero value keeps a visible stub even when the largest bar dwarfs it.
                if bar.value != 0 && abs(end - zero) < 2 { end = zero + (bar.value > 0 ? 2 : -2) }
                svg.element("rect", [
                    "x": f(min(zero, end)), "y": f(top), "width": f(abs(end - zero)), "height": f(barHeight),
                    "fill": color(bar.colorIndex),
                ])
            }
            svg.text(bar.valueText, x: max(zero, end) + 6, y: middle + fontSize * 0.35, fill: textColor)
        }
        svg.close("g")
        // The baseline at zero over the bars, and the frame's left and bottom edges.
        svg.line(zero, plotTop, zero, plotBottom, stroke: axisColor)
        svg.line(plotLeft, plotBottom, plotRight, plotBottom, stroke: axisColor)
        svg.text(chart.valueAxis.title, x: (plotLeft + plotRight) / 2, y: plotBottom + 8 + fontSize + 10 + fontSize,
                 anchor: "middle", fill: textColor, weight: "bold")
        if chart.bars.isEmpty {
            svg.text("no data", x: (plotLeft + plotRight) / 2, y: (plotTop + plotBottom) / 2, anchor: "middle", fill: "#888888")
        }
        drawLegend(&svg, legend)
        return svg.finish()
    }

    // MARK: Shared parts

    private func header(_ svg: inout SVGBuilder, title: String, subtitle: String?) {
        svg.text(title, x: 16, y: 24 + titleSize * 0.8, fill: textColor, size: titleSize, weight: "bold")
        if let subtitle {
            svg.text(subtitle, x: 16, y: 24 + titleSize + 8 + fontSize * 0.8, fill: "#555555")
        }
    }

    private func axisTitles(
        _ svg: inout SVGBuilder, x: String, y: String, plotLeft: Double, plotRight: Double, plotTop: Double, plotBottom: Double
    ) {
        svg.text(x, x: (plotLeft + plotRight) / 2, y: plotBottom + 8 + fontSize + 10 + fontSize, anchor: "middle",
                 fill: textColor, weight: "bold")
        let centerY = (plotTop + plotBottom) / 2
        svg.element("text", [
            "x": f(16 + fontSize * 0.8), "y": f(centerY), "text-anchor": "middle", "fill": textColor, "font-weight": "bold",
            "transform": "rotate(-90 \(f(16 + fontSize * 0.8)) \(f(centerY)))",
        ], content: y)
    }

    /// How a legend entry shows its color.
    private enum Swatch {
        /// A short line, for line charts without markers.
        case line
        /// A short line with a marker, for line charts with markers.
        case lineWithMarker
        /// A filled square, for bar charts.
        case box
    }

    private struct LegendLayout {
        var entries: [(label: String, colorIndex: Int, x: Double, y: Double)]
        var swatch: Swatch
        var bottom: Double
    }

    /// Lays legend entries out left to right below the plot, wrapping to further rows as needed.
    private func legendLayout(_ items: [(String, Int)], top: Double, swatch: Swatch) -> LegendLayout {
        let rowHeight = fontSize + 10
        let swatchWidth = swatch == .box ? 14.0 : 26.0
        var x = 16.0
        var y = top
        var entries: [(label: String, colorIndex: Int, x: Double, y: Double)] = []
        for (label, colorIndex) in items {
            let entryWidth = swatchWidth + 6 + textWidth(label) + 20
            if x > 16 && x + entryWidth > width - 16 {
                x = 16
                y += rowHeight
            }
            entries.append((label, colorIndex, x, y))
            x += entryWidth
        }
        return LegendLayout(entries: entries, swatch: swatch, bottom: items.isEmpty ? top - 16 : y + rowHeight - 8)
    }

    private func drawLegend(_ svg: inout SVGBuilder, _ legend: LegendLayout) {
        guard !legend.entries.isEmpty else { return }
        svg.open("g", ["class": "legend", "fill": textColor])
        for entry in legend.entries {
            let middle = entry.y + fontSize / 2
            switch legend.swatch {
            case .line, .lineWithMarker:
                var attributes = [
                    "x1": f(entry.x), "y1": f(middle), "x2": f(entry.x + 26), "y2": f(middle),
                    "stroke": color(entry.colorIndex), "stroke-width": "2.5",
                ]
                if !dash(entry.colorIndex).isEmpty { attributes["stroke-dasharray"] = dash(entry.colorIndex) }
                svg.element("line", attributes)
                if legend.swatch == .lineWithMarker {
                    svg.element("circle", ["cx": f(entry.x + 13), "cy": f(middle), "r": "3.5", "fill": color(entry.colorIndex)])
                }
                svg.text(entry.label, x: entry.x + 32, y: middle + fontSize * 0.35)
            case .box:
                svg.element("rect", [
                    "x": f(entry.x), "y": f(middle - 7), "width": "14", "height": "14", "fill": color(entry.colorIndex),
                ])
                svg.text(entry.label, x: entry.x + 20, y: middle + fontSize * 0.35)
            }
        }
        svg.close("g")
    }

    /// `text` cut to about `width` px with an ellipsis (the full text stays in the tooltip).
    private func truncated(_ text: String, toWidth width: Double) -> String {
        guard textWidth(text) > width else { return text }
        let keep = max(Int(width / (fontSize * 0.62)) - 1, 1)
        return String(text.prefix(keep)) + "…"
    }
}

/// Shorthand for ``SVGBuilder/coordinate(_:)``, which every element of a chart needs.
private func f(_ value: Double) -> String { SVGBuilder.coordinate(value) }
