/// Escaping of report text (scenario names, notes, labels: anything a scenario wrote) for the
/// three markup languages the report writes. Report text is data, never markup.
enum MarkupEscaping {
    /// Text for XML and HTML content and attribute values. Also drops the control characters that
    /// XML 1.0 forbids, which would otherwise make the whole SVG unparsable.
    static func xml(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            case "\t", "\n", "\r": result.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || (0xFFFE...0xFFFF).contains(scalar.value) { continue }
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// Prose for HTML: escaped, with Markdown-style `code` spans (as notes use them) shown as
    /// `<code>`. Text with an unpaired backtick is shown as it is.
    static func htmlProse(_ text: String) -> String {
        let parts = text.split(separator: "`", omittingEmptySubsequences: false)
        guard parts.count > 1, parts.count % 2 == 1 else { return xml(text) }
        return parts.enumerated().map { index, part in
            index % 2 == 1 ? "<code>" + xml(String(part)) + "</code>" : xml(String(part))
        }.joined()
    }

    /// Prose for Markdown: keeps `code` spans and other Markdown as written, but escapes `<`, `>`
    /// and `&` outside code spans so that renderers do not take `<T>` for an HTML tag.
    static func markdownProse(_ text: String) -> String {
        let parts = text.split(separator: "`", omittingEmptySubsequences: false)
        let balanced = parts.count % 2 == 1
        return parts.enumerated().map { index, part in
            if balanced && index % 2 == 1 { return String(part) }
            var escaped = ""
            for character in part {
                switch character {
                case "&": escaped += "&amp;"
                case "<": escaped += "&lt;"
                case ">": escaped += "&gt;"
                default: escaped.append(character)
                }
            }
            return escaped
        }.joined(separator: "`")
    }

    /// Prose for a Markdown table cell: as ``markdownProse(_:)``, on one line, with `|` escaped.
    static func markdownCell(_ text: String) -> String {
        markdownProse(text)
            .replacingOccurrences(of: "\r\n", with: " ")
            .replacingOccurrences(of: "\n", with: " ")
            .replacingOccurrences(of: "|", with: "\\|")
    }

    /// `text` as a Markdown code span (backticks chosen so that the text cannot close it), for use
    /// in a table cell.
    static func markdownCode(_ text: String) -> String {
        let flat = text.replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "|", with: "\\|")
        let fence = flat.contains("`") ? "`` " : "`"
        return fence + flat + String(fence.reversed())
    }
}
