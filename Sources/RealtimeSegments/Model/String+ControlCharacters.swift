extension String {
    /// This text with its control characters written as escapes (`\n`, `\r`, `\t`, `\u{1B}`), and
    /// the line and paragraph separators too: text a server sent stays on the one log line that
    /// quotes it, and cannot forge a line of its own.
    package var escapingControlCharacters: String {
        guard unicodeScalars.contains(where: Self.needsEscape) else { return self }
        var escaped = ""
        for scalar in unicodeScalars {
            if Self.needsEscape(scalar) {
                escaped += scalar.escaped(asASCII: true)
            } else {
                escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control || scalar == "\u{2028}" || scalar == "\u{2029}"
    }
}
