import Foundation

/// The nesting depth that Foundation's `JSONDecoder` can be given safely, and the check that keeps
/// deeper documents from it.
///
/// `JSONDecoder` on Linux rejects containers nested deeper than 512 with an error, except where the
/// 513th level is an array opened by the last byte of the input: there it traps and the process dies.
/// So every decode of bytes from outside the process (a server's answer, a file, a request) goes
/// through ``Foundation/JSONDecoder/decodeUntrusted(_:from:)``, which rejects deeper nesting first.
package enum JSONNestingLimit {
    /// The deepest container nesting accepted, the root container being depth 1: `JSONDecoder`'s own
    /// limit, so nothing it decodes is rejected.
    package static let maximumDepth = 512

    /// Whether `data`, read as `JSONDecoder` reads it, opens containers deeper than
    /// ``maximumDepth``. Brackets inside strings do not count. One linear pass; any thread.
    ///
    /// Exact for every prefix that is valid JSON (where `JSONDecoder` could get that deep); on
    /// invalid input it may answer `true` where `JSONDecoder` would fail for another reason.
    package static func isExceeded(by data: Data) -> Bool {
        if let units = utf8Transcoding(ofUnicodeEncoded: data) { return isExceeded(byUTF8: units) }
        return isExceeded(byUTF8: data)
    }

    private static func isExceeded(byUTF8 bytes: some Collection<UInt8>) -> Bool {
        depth(ofUTF8: bytes, stoppingAbove: maximumDepth) > maximumDepth
    }

    /// How deep `[` and `{` (and `(` with `countingParentheses`, as in a GraphQL document) nest in
    /// `bytes`, outside `"` strings with backslash escapes; it stops counting once past `limit`.
    /// One linear pass; any thread.
    package static func depth(
        ofUTF8 bytes: some Collection<UInt8>, countingParentheses: Bool = false, stoppingAbove limit: Int
    ) -> Int {
        var depth = 0
        var deepest = 0
        var inString = false
        var escaped = false
        for byte in bytes {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
            case UInt8(ascii: "(") where countingParentheses:
                depth += 1
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                depth = max(depth - 1, 0)
            case UInt8(ascii: ")") where countingParentheses:
                depth = max(depth - 1, 0)
            default:
                break
            }
            if depth > deepest {
                deepest = depth
                if deepest > limit { return deepest }
            }
        }
        return deepest
    }

    /// `data` as UTF-8 when `JSONDecoder` would read it as UTF-16 or UTF-32 (a byte order mark, or
    /// zero bytes among the first four as RFC 4627 §3 detects them), else `nil`. Invalid sequences
    /// become U+FFFD: only the ASCII structure matters here, and it survives the repair.
    private static func utf8Transcoding(ofUnicodeEncoded data: Data) -> String.UTF8View? {
        let head = Array(data.prefix(4)) + [UInt8](repeating: 1, count: max(0, 4 - data.count))
        switch (head[0], head[1], head[2], head[3]) {
        case (0xEF, 0xBB, 0xBF, _):
            return nil
        case (0, 0, 0xFE, 0xFF), (0, 0, 0, _):
            return decode(data, unitSize: 4, bigEndian: true)
        case (0xFF, 0xFE, 0, 0), (_, 0, 0, 0):
            return decode(data, unitSize: 4, bigEndian: false)
        case (0xFE, 0xFF, _, _), (0, _, _, _):
            return decode(data, unitSize: 2, bigEndian: true)
        case (0xFF, 0xFE, _, _), (_, 0, _, _):
            return decode(data, unitSize: 2, bigEndian: false)
        default:
            return nil
        }
    }

    private static func decode(_ data: Data, unitSize: Int, bigEndian: Bool) -> String.UTF8View {
        var units: [UInt32] = []
        units.reserveCapacity(data.count / unitSize)
        var unit: UInt32 = 0
        for (offset, byte) in data.enumerated() {
            let shift = bigEndian ? (unitSize - 1 - offset % unitSize) * 8 : offset % unitSize * 8
            unit |= UInt32(byte) << UInt32(shift)
            if offset % unitSize == unitSize - 1 {
                units.append(unit)
                unit = 0
            }
        }
        if unitSize == 2 { return String(decoding: units.map { UInt16(truncatingIfNeeded: $0) }, as: UTF16.self).utf8 }
        return String(decoding: units, as: UTF32.self).utf8
    }
}

extension JSONDecoder {
    /// `decode(_:from:)` for bytes from outside the process. Nesting deeper than
    /// ``JSONNestingLimit/maximumDepth`` throws `DecodingError.dataCorrupted`, the error `decode`
    /// gives for other invalid JSON, instead of reaching the decoder (which can trap on it).
    package func decodeUntrusted<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        guard !JSONNestingLimit.isExceeded(by: data) else {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: [],
                debugDescription: "The given data was not valid JSON: containers nested deeper than \(JSONNestingLimit.maximumDepth)."))
        }
        return try decode(type, from: data)
    }
}
