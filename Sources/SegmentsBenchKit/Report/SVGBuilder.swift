import Foundation

/// Writes SVG markup: elements with sorted attributes (for byte-stable output) and escaped text.
struct SVGBuilder {
    private var body = ""

    /// Starts a document of `width` × `height` px with a `<title>` (what viewers and screen readers
    /// show) and a white background.
    init(width: Double, height: Double, title: String, fontFamily: String, fontSize: Double) {
        body += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        body += "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"\(Self.coordinate(width))\" height=\"\(Self.coordinate(height))\" "
        body += "viewBox=\"0 0 \(Self.coordinate(width)) \(Self.coordinate(height))\" font-family=\"\(MarkupEscaping.xml(fontFamily))\" font-size=\"\(Self.coordinate(fontSize))\">\n"
        body += "<title>\(MarkupEscaping.xml(title))</title>\n"
        body += "<rect x=\"0\" y=\"0\" width=\"\(Self.coordinate(width))\" height=\"\(Self.coordinate(height))\" fill=\"#ffffff\"/>\n"
    }

    mutating func open(_ name: String, _ attributes: [String: String]) {
        body += "<\(name)\(Self.attributes(attributes))>\n"
    }

    mutating func close(_ name: String) {
        body += "</\(name)>\n"
    }

    mutating func element(_ name: String, _ attributes: [String: String], content: String? = nil) {
        if let content {
            body += "<\(name)\(Self.attributes(attributes))>\(MarkupEscaping.xml(content))</\(name)>\n"
        } else {
            body += "<\(name)\(Self.attributes(attributes))/>\n"
        }
    }

    /// Markup written as it is; only for fixed markup built from numbers.
    mutating func raw(_ markup: String) {
        body += markup + "\n"
    }

    mutating func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, stroke: String) {
        element("line", ["x1": Self.coordinate(x1), "y1": Self.coordinate(y1), "x2": Self.coordinate(x2), "y2": Self.coordinate(y2), "stroke": stroke])
    }

    mutating func text(
        _ content: String, x: Double, y: Double, anchor: String? = nil, fill: String? = nil, size: Double? = nil,
        weight: String? = nil
    ) {
        element("text", textAttributes(x: x, y: y, anchor: anchor, fill: fill, size: size, weight: weight), content: content)
    }

    /// Text with a `<title>` child, which viewers show on hover: the full text of a shortened label.
    mutating func textWithTooltip(_ content: String, tooltip: String, x: Double, y: Double, anchor: String, fill: String) {
        let attributes = Self.attributes(textAttributes(x: x, y: y, anchor: anchor, fill: fill, size: nil, weight: nil))
        body += "<text\(attributes)><title>\(MarkupEscaping.xml(tooltip))</title>\(MarkupEscaping.xml(content))</text>\n"
    }

    private func textAttributes(
        x: Double, y: Double, anchor: String?, fill: String?, size: Double?, weight: String?
    ) -> [String: String] {
        var attributes = ["x": Self.coordinate(x), "y": Self.coordinate(y)]
        if let anchor { attributes["text-anchor"] = anchor }
        if let fill { attributes["fill"] = fill }
        if let size { attributes["font-size"] = Self.coordinate(size) }
        if let weight { attributes["font-weight"] = weight }
        return attributes
    }

    /// A coordinate or length for SVG: rounded to 0.1 px (enough for a screen, and stable across
    /// platforms), without a trailing `.0` or a negative zero. Values far outside any chart (data far
    /// outside an axis' domain, cut off by the clip path) are clamped so that they stay numbers.
    static func coordinate(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let tenths = (min(max(value, -1e6), 1e6) * 10).rounded()
        if tenths == 0 { return "0" }
        if tenths.truncatingRemainder(dividingBy: 10) == 0 { return String(Int(tenths / 10)) }
        return String(format: "%.1f", tenths / 10)
    }

    /// The finished document.
    func finish() -> String {
        body + "</svg>\n"
    }

    private static func attributes(_ attributes: [String: String]) -> String {
        attributes.keys.sorted().map { " \($0)=\"\(MarkupEscaping.xml(attributes[$0]!))\"" }.joined()
    }
}
