import Foundation
import RealtimeSegments
import XCTest

/// The hand-written parser against the `JSONDecoder` implementation it replaced
/// (`ReferenceSegmentsDecoder`), on thousands of seeded random bodies: valid responses (random
/// whitespace, escapes, Unicode, extra fields of every JSON type, repeated keys, segments in the API's
/// compact layout) and mutations of them
/// (truncation, byte flips, insertions, deletions, wrong types, missing fields, nulls, trailing
/// garbage, deep nesting). Both must accept or reject the same bodies and, when they accept, return
/// the same response.
///
/// The oracle is `JSONDecoder` restricted to RFC 8259 documents: where `JSONDecoder` accepts a body
/// that is not strict JSON (a trailing comma, a malformed number or escape or invalid UTF-8 in a field
/// it never decodes, UTF-16), the new parser rejects it on purpose (see `SegmentsResponseParser`).
/// Strictness is judged by `StrictJSON`, a small independent validator of the RFC 8259 grammar.
final class SegmentsResponseDifferentialTests: XCTestCase {
    func testAgreesWithTheJSONDecoderImplementationOnRandomBodies() {
        var generator = BodyGenerator(seed: 0x5E61_1E57_DEC0_DE01)
        var accepted = 0
        var rejected = 0
        var mutated = 0
        for _ in 0..<3_000 {
            var body = generator.validBody()
            if generator.chance(55) {
                generator.mutate(&body)
                mutated += 1
            }
            if check(body) { accepted += 1 } else { rejected += 1 }
        }
        // The mix covers both outcomes in volume (the seed is fixed, so these are stable).
        XCTAssertGreaterThan(accepted, 1_000)
        XCTAssertGreaterThan(rejected, 1_000)
        XCTAssertGreaterThan(mutated, 1_000)
    }

    func testAgreesOnBodiesNearTheDepthLimit() {
        for depth in 505...515 {
            for open in ["[", #"{"k":"#] {
                let close = open == "[" ? "]" : "}"
                let inner = String(repeating: open, count: depth) + "1" + String(repeating: close, count: depth)
                check(Array(#"{"d":[{"id":"a","segmentation_id":"b","x":\#(inner)}]}"#.utf8))
            }
        }
    }

    /// Decodes `body` with both implementations and compares; returns whether it was accepted.
    @discardableResult
    private func check(_ body: [UInt8], file: StaticString = #filePath, line: UInt = #line) -> Bool {
        let shown = String(decoding: body.prefix(600), as: UTF8.self)
        let reference = Result { () throws(SegmentsError) in try ReferenceSegmentsDecoder.decodeWire(body) }
        let strict = StrictJSON.isValid(body)
        let actual = Result { () throws(SegmentsError) in try SegmentsResponseDecoder.decode(body) }
        switch (reference, actual) {
        case (.success(let wire), .success(let response)):
            if !strict {
                XCTFail("accepted a body that is not RFC 8259 JSON: \(shown)", file: file, line: line)
                return true
            }
            XCTAssertTrue(Self.sameResponse(response, wire), "different responses for \(shown): \(response) vs \(wire)", file: file, line: line)
            return true
        case (.failure, .success(let response)):
            XCTFail("accepted what JSONDecoder rejects: \(shown) -> \(response)", file: file, line: line)
            return true
        case (.success(let wire), .failure(let error)):
            if strict { XCTFail("rejected what JSONDecoder accepts: \(shown) -> \(error) vs \(wire)", file: file, line: line) }
            return false
        case (.failure(let expected), .failure(let error)):
            // Syntax errors have one reason; shape reasons may name another of several errors
            // (JSONDecoder visits categories in hash order), so only the kind is compared.
            let syntax = [SegmentsError.malformedResponse("invalid JSON at root"), .malformedResponse("empty body")]
            XCTAssertEqual(
                syntax.contains(error), syntax.contains(expected) || !strict,
                "\(shown): \(error) vs \(expected)", file: file, line: line)
            return false
        }
    }

    /// Equal categories; where several wire keys were merged into one category (`Discovery` and
    /// `discovery`), equal as multisets, because the reference merges in dictionary order.
    private static func sameResponse(_ response: SegmentsResponse, _ wire: [String: [Segment]]) -> Bool {
        var keysPerCategory: [SegmentCategory: Int] = [:]
        for key in wire.keys { keysPerCategory[SegmentCategory(name: key), default: 0] += 1 }
        let expected = SegmentsResponse(wireCategories: wire)
        guard Set(expected.categories.keys) == Set(response.categories.keys) else { return false }
        for (category, segments) in expected.categories {
            let actual = response[category]
            if keysPerCategory[category] == 1 {
                if actual != segments { return false }
            } else {
                let order = { (a: Segment, b: Segment) in (a.id, a.segmentationId) < (b.id, b.segmentationId) }
                if actual.sorted(by: order) != segments.sorted(by: order) { return false }
            }
        }
        return true
    }
}

/// Whether bytes are one strict RFC 8259 JSON text (see the test class): a small recursive validator
/// over Unicode scalars, written independently of the parser under test (the stdlib validates the
/// UTF-8). It also rejects lone surrogate escapes (not Unicode scalars; `JSONDecoder` rejects them in
/// what it decodes) and, like both decoders, nesting deeper than 512 and accepts a leading BOM.
private struct StrictJSON {
    private let scalars: [Unicode.Scalar]
    private var position = 0

    static func isValid(_ body: [UInt8]) -> Bool {
        guard let text = String(validating: body, as: UTF8.self) else { return false }
        var validator = StrictJSON(scalars: Array(text.unicodeScalars))
        if validator.scalars.first == "\u{FEFF}" { validator.position = 1 }
        guard validator.value(depth: 0) else { return false }
        validator.whitespace()
        return validator.position == validator.scalars.count
    }

    private init(scalars: [Unicode.Scalar]) { self.scalars = scalars }

    private var current: Unicode.Scalar? { position < scalars.count ? scalars[position] : nil }

    private mutating func whitespace() {
        while let scalar = current, scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" { position += 1 }
    }

    private mutating func take(_ scalar: Unicode.Scalar) -> Bool {
        whitespace()
        guard current == scalar else { return false }
        position += 1
        return true
    }

    private mutating func value(depth: Int) -> Bool {
        whitespace()
        switch current {
        case "{":
            guard depth < 512 else { return false }
            position += 1
            if take("}") { return true }
            repeat {
                whitespace()
                guard string(), take(":"), value(depth: depth + 1) else { return false }
            } while take(",")
            return take("}")
        case "[":
            guard depth < 512 else { return false }
            position += 1
            if take("]") { return true }
            repeat {
                guard value(depth: depth + 1) else { return false }
            } while take(",")
            return take("]")
        case "\"": return string()
        case "t": return word("true")
        case "f": return word("false")
        case "n": return word("null")
        default: return number()
        }
    }

    private mutating func word(_ text: String) -> Bool {
        for scalar in text.unicodeScalars {
            guard current == scalar else { return false }
            position += 1
        }
        return true
    }

    private mutating func digits() -> Int {
        let start = position
        while let scalar = current, ("0"..."9").contains(scalar) { position += 1 }
        return position - start
    }

    private mutating func number() -> Bool {
        if current == "-" { position += 1 }
        if current == "0" {
            position += 1
        } else if digits() == 0 {
            return false
        }
        if current == "." {
            position += 1
            guard digits() > 0 else { return false }
        }
        if current == "e" || current == "E" {
            position += 1
            if current == "+" || current == "-" { position += 1 }
            guard digits() > 0 else { return false }
        }
        return true
    }

    private mutating func string() -> Bool {
        guard current == "\"" else { return false }
        position += 1
        var pendingHighSurrogate = false
        while let scalar = current {
            position += 1
            if scalar == "\\" {
                guard let escaped = current else { return false }
                position += 1
                if escaped == "u" {
                    guard position + 4 <= scalars.count,
                        let unit = UInt32(String(String.UnicodeScalarView(scalars[position..<position + 4])), radix: 16),
                        scalars[position..<position + 4].allSatisfy(\.properties.isASCIIHexDigit)
                    else { return false }
                    position += 4
                    let isLow = (0xDC00...0xDFFF).contains(unit)
                    guard isLow == pendingHighSurrogate else { return false }
                    pendingHighSurrogate = (0xD800...0xDBFF).contains(unit)
                    continue
                }
                guard "\"\\/bfnrt".unicodeScalars.contains(escaped) else { return false }
            } else if scalar == "\"" {
                return !pendingHighSurrogate
            } else if scalar.value < 0x20 {
                return false
            }
            if pendingHighSurrogate { return false }
        }
        return false
    }
}

/// Random segments bodies, as bytes. Written to be quick in a debug build: the choices are static
/// tables and the bytes are appended directly.
private struct BodyGenerator {
    private var random: SplitMix64

    /// The same seed gives the same bodies (`SplitMix64` is the test target's seeded generator).
    init(seed: UInt64) { random = SplitMix64(seed: seed) }

    mutating func chance(_ percent: UInt64) -> Bool { random.next() % 100 < percent }
    private mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(random.next() % UInt64(range.count))
    }
    private mutating func pick<T>(_ choices: [T]) -> T { choices[int(0...choices.count - 1)] }

    private static let hexDigits = Array("0123456789abcdef".utf8)
    private static let categoryKeys = [
        "discovery", "merchandising", "content", "Discovery", "MERCHANDISE", "merchandise", "custom_future",
        "Ünïcødé", "e\u{301}", "\u{E9}", "a\"b", "back\\slash", "😀", "\u{0}",
    ]
    /// Keys that are not valid categories: empty or blank.
    private static let blankKeys = ["", " ", "\u{A0}", "\t"]
    private static let extraNames = ["name", "x", "", "ID", "Id", "segmentationId", "segmentation_id ", "ids", "i", "ünï", "😀"]
    private static let textPieces: [String] = [
        "a", "Z", "0", "f", " ", "\"", "\\", "/", "\n", "\t", "\u{0}", "\u{1F}", "\u{7F}", "é", "e\u{301}", "€",
        "\u{2028}", "😀", "𝄞", "中", "\u{FEFF}", "\u{FFFF}", "\u{10FFFF}",
    ]
    private static let numbers = [
        "0", "-0", "1", "-12", "3.25", "1e5", "1E+2", "-0.5e-3", "123456789012345678901234567890",
        "1.7976931348623157e308", "5e-324", "0.0", "1e01234567890",
    ].map { Array($0.utf8) }
    private static let whitespaceBytes: [UInt8] = [0x20, 0x0A, 0x0D, 0x09]
    private static let garbage = [" x", "{}", ",", "\u{0}", " ", "\n", "]", "}", "1", "\"\"", "null", "\u{FEFF}"].map { Array($0.utf8) }
    /// Values spliced in anywhere: invalid numbers, escapes and literals, wrong shapes, nulls.
    private static let snippets = [
        "null", "1", "01", "-", "1.", ".5", "1e", "+1", "-0", "true", "tru", "\"\\q\"", "\"\\uD800\"",
        "\"\\uDC00\"", "\"\\uD83D\\uDE00\"", "\"\\u12G4\"", "[]", "{}", "[1,]", "{\"a\":1,}", "\"\u{1}\"",
        "{\"id\":1}", "{\"segmentation_id\":\"s\"}", "[{\"id\":\"a\",\"segmentation_id\":null}]",
        "{\"id\":\"a\",\"segmentation_id\":\"b\"}", "\"\u{FEFF}\"", "NaN", "[null]",
    ].map { Array($0.utf8) }
    private static let interestingBytes =
        Array("\"\\{}[],:0-.eE nt\t\n".utf8) + [0x00, 0x1F, 0x7F, 0x80, 0xBF, 0xC0, 0xC3, 0xE2, 0xED, 0xF0, 0xF4, 0xF5, 0xFF]

    // MARK: Valid bodies

    /// A response that both decoders accept, unless it deliberately has the wrong shape (a few
    /// percent of the values: wrong types, missing fields, nulls, envelopes, blank keys).
    mutating func validBody() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(1_024)
        whitespace(&out)
        if chance(2) {
            // A root that is not an object.
            value(&out, depth: 0)
            whitespace(&out)
            return out
        }
        out.append(UInt8(ascii: "{"))
        for index in 0..<int(0...4) {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            whitespace(&out)
            string(&out, chance(3) ? pick(Self.blankKeys) : pick(Self.categoryKeys))
            whitespace(&out)
            out.append(UInt8(ascii: ":"))
            whitespace(&out)
            category(&out)
            whitespace(&out)
        }
        out.append(UInt8(ascii: "}"))
        whitespace(&out)
        return out
    }

    private mutating func category(_ out: inout [UInt8]) {
        // Not an array: null, an object (an envelope), a string, a number.
        if chance(2) { return value(&out, depth: 1) }
        out.append(UInt8(ascii: "["))
        whitespace(&out)
        for index in 0..<int(0...5) {
            if index > 0 {
                out.append(UInt8(ascii: ","))
                whitespace(&out)
            }
            segment(&out)
            whitespace(&out)
        }
        out.append(UInt8(ascii: "]"))
    }

    private enum Field {
        case id, segmentationId, extra
    }

    private mutating func segment(_ out: inout [UInt8]) {
        if chance(1) { return value(&out, depth: 2) }
        if chance(30) {
            // The API's own layout, which the parser matches in one step; mutations then make near
            // misses of it (a flipped hex digit, a dropped quote, a truncated id).
            out.append(contentsOf: #"{"id":"#.utf8)
            hexId(&out)
            out.append(contentsOf: #","segmentation_id":"#.utf8)
            hexId(&out)
            out.append(UInt8(ascii: "}"))
            return
        }
        var fields: [Field] = []
        if !chance(1) { fields.append(.id) }
        if !chance(1) { fields.append(.segmentationId) }
        for _ in 0..<int(0...2) where chance(40) { fields.append(.extra) }
        // A repeated field: only its first occurrence counts.
        if chance(3) { fields.append(chance(50) ? .id : .segmentationId) }
        fields.shuffle(using: &random)
        out.append(UInt8(ascii: "{"))
        for (index, field) in fields.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            whitespace(&out)
            switch field {
            case .id: string(&out, "id")
            case .segmentationId: string(&out, "segmentation_id")
            case .extra: string(&out, pick(Self.extraNames))
            }
            whitespace(&out)
            out.append(UInt8(ascii: ":"))
            whitespace(&out)
            if field == .extra || chance(1) {
                value(&out, depth: 3)  // For a known field: null, a number, an array...
            } else if chance(85) {
                hexId(&out)
            } else {
                string(&out, text())
            }
            whitespace(&out)
        }
        out.append(UInt8(ascii: "}"))
    }

    private mutating func hexId(_ out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for _ in 0..<24 { out.append(Self.hexDigits[int(0...15)]) }
        out.append(UInt8(ascii: "\""))
    }

    /// Short strings of awkward characters: escapes, controls, multi-byte, astral, combining.
    private mutating func text() -> String {
        var text = ""
        for _ in 0..<int(0...6) { text += pick(Self.textPieces) }
        return text
    }

    /// Any JSON value; containers only while `depth` is small.
    private mutating func value(_ out: inout [UInt8], depth: Int) {
        switch depth < 5 ? int(0...9) : int(0...5) {
        case 0: out.append(contentsOf: "null".utf8)
        case 1: out.append(contentsOf: chance(50) ? "true".utf8 : "false".utf8)
        case 2, 3: out.append(contentsOf: pick(Self.numbers))
        case 4, 5:
            if chance(50) { string(&out, text()) } else { hexId(&out) }
        case 6, 7:
            out.append(UInt8(ascii: "["))
            for index in 0..<int(0...3) {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                whitespace(&out)
                value(&out, depth: depth + 1)
                whitespace(&out)
            }
            out.append(UInt8(ascii: "]"))
        default:
            out.append(UInt8(ascii: "{"))
            for index in 0..<int(0...3) {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                whitespace(&out)
                string(&out, chance(50) ? pick(Self.extraNames) : text())
                out.append(UInt8(ascii: ":"))
                value(&out, depth: depth + 1)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Whitespace JSON allows, usually none.
    private mutating func whitespace(_ out: inout [UInt8]) {
        guard chance(20) else { return }
        for _ in 0..<int(1...3) { out.append(pick(Self.whitespaceBytes)) }
    }

    /// `text` as a JSON string literal, each character raw or escaped at random (controls, quotes and
    /// backslashes always escaped).
    private mutating func string(_ out: inout [UInt8], _ text: String) {
        out.append(UInt8(ascii: "\""))
        for scalar in text.unicodeScalars {
            let mustEscape = scalar.value < 0x20 || scalar == "\"" || scalar == "\\"
            if !mustEscape && !chance(10) {
                out.append(contentsOf: UTF8.encode(scalar)!)
                continue
            }
            switch scalar {
            case "\"": out.append(contentsOf: #"\""#.utf8)
            case "\\": out.append(contentsOf: #"\\"#.utf8)
            case "\n" where chance(50): out.append(contentsOf: #"\n"#.utf8)
            case "\t" where chance(50): out.append(contentsOf: #"\t"#.utf8)
            case "/": out.append(contentsOf: #"\/"#.utf8)
            default:
                let digits = Array((chance(50) ? "0123456789abcdef" : "0123456789ABCDEF").utf8)
                for unit in UTF16.encode(scalar)! {
                    out.append(contentsOf: #"\u"#.utf8)
                    for shift in [12, 8, 4, 0] { out.append(digits[Int(unit >> UInt16(shift)) & 0xF]) }
                }
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    // MARK: Mutations

    mutating func mutate(_ body: inout [UInt8]) {
        for _ in 0..<int(1...2) {
            switch int(0...7) {
            case 0 where !body.isEmpty:
                body.removeLast(int(1...body.count))
            case 1 where !body.isEmpty:
                body[int(0...body.count - 1)] = pick(Self.interestingBytes)
            case 2:
                body.insert(pick(Self.interestingBytes), at: int(0...body.count))
            case 3 where !body.isEmpty:
                let start = int(0...body.count - 1)
                body.removeSubrange(start..<min(body.count, start + int(1...8)))
            case 4:
                body.append(contentsOf: pick(Self.garbage))
            case 5:
                body.insert(contentsOf: pick(Self.snippets), at: int(0...body.count))
            case 6:
                // Deep nesting, around the limit of 512 (the root and a segment hold 3 levels).
                let depth = pick([3, 100, 507, 508, 509, 510, 511, 520, 2_000])
                let isArray = chance(50)
                var deep = Array(#"{"d":[{"id":"a","segmentation_id":"b","x":"#.utf8)
                for _ in 0..<depth { deep.append(contentsOf: isArray ? "[".utf8 : #"{"k":"#.utf8) }
                deep.append(UInt8(ascii: "0"))
                deep.append(contentsOf: repeatElement(UInt8(ascii: isArray ? "]" : "}"), count: depth))
                deep.append(contentsOf: "}]".utf8)
                if body.first == UInt8(ascii: "{") {
                    if body.count > 2 { deep.append(UInt8(ascii: ",")) }
                    body.replaceSubrange(0..<1, with: deep)
                } else {
                    body = deep + Array("}".utf8)
                }
            default:
                if !body.isEmpty { body[int(0...body.count - 1)] = UInt8(truncatingIfNeeded: random.next()) }
            }
        }
    }
}
