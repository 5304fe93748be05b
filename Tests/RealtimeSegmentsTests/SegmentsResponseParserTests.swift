import Dispatch
import Foundation
import RealtimeSegments
import XCTest

/// The rules of the hand-written segments parser one by one: JSON details (escapes, surrogates,
/// UTF-8, whitespace, numbers, depth, trailing bytes), repeated keys, reason texts, and where it is
/// deliberately stricter than the `JSONDecoder` implementation it replaced.
final class SegmentsResponseParserTests: XCTestCase {
    private func decode(_ body: String) throws(SegmentsError) -> SegmentsResponse {
        try SegmentsResponseDecoder.decode(Array(body.utf8))
    }

    /// The segment of a body with one category `d` holding one segment.
    private func only(_ body: String, file: StaticString = #filePath, line: UInt = #line) -> Segment? {
        do {
            let segments = try decode(body)[.other("d")]
            XCTAssertEqual(segments.count, 1, body, file: file, line: line)
            return segments.first
        } catch {
            XCTFail("\(body): \(error)", file: file, line: line)
            return nil
        }
    }

    /// A body with one segment `{"id":"a","segmentation_id":"b", "x": <value>}`.
    private func withExtra(_ value: String) -> String {
        #"{"d":[{"id":"a","segmentation_id":"b","x":\#(value)}]}"#
    }

    private func reason(_ body: some DataProtocol) -> String? {
        do {
            _ = try SegmentsResponseDecoder.decode(body)
            return nil
        } catch {
            guard case .malformedResponse(let reason) = error else { return "\(error)" }
            return reason
        }
    }

    private func reason(_ body: String) -> String? { reason(Array(body.utf8)) }

    private func assertRejected(_ body: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(reason(body), "invalid JSON at root", body, file: file, line: line)
    }

    // MARK: Strings

    func testEveryEscapeDecodes() {
        let segment = only(#"{"d":[{"id":"q\"b\\s\/b\bf\fn\nr\rt\tu\u0041\u00e9\u20AC","segmentation_id":"\u0000"}]}"#)
        XCTAssertEqual(segment?.id, "q\"b\\s/b\u{8}f\u{C}n\nr\rt\tuAé€")
        XCTAssertEqual(segment?.segmentationId, "\u{0}")
    }

    func testEscapedKeysMatchTheirPlainSpelling() {
        let response = try? decode(#"{"disc\u006Fvery":[{"\u0069d":"a","segmentation\u005fid":"b"}]}"#)
        XCTAssertEqual(response?[.discovery], [Segment(id: "a", segmentationId: "b")])
    }

    func testSurrogatePairsDecodeToOneScalar() {
        XCTAssertEqual(only(#"{"d":[{"id":"\uD83D\uDE00","segmentation_id":"\ud834\udd1e"}]}"#), Segment(id: "😀", segmentationId: "𝄞"))
    }

    func testLoneOrMismatchedSurrogatesAreRejected() {
        for escape in [#"\uD83D"#, #"\uDE00"#, #"x\uD83D"#, #"\uD83Dx"#, #"\uD83D\u0041"#, #"\uD83D\uD83D"#, #"\uD83D\n"#, #"\uDE00\uD83D"#] {
            assertRejected(#"{"d":[{"id":"\#(escape)","segmentation_id":"b"}]}"#)
            assertRejected(withExtra(#""\#(escape)""#))
        }
    }

    func testInvalidEscapesAreRejectedEvenInSkippedFields() {
        for escape in [#"\q"#, #"\u12G4"#, #"\u12"#, #"\U0041"#, #"\x41"#, #"\'"#, "\\"] {
            assertRejected(#"{"d":[{"id":"\#(escape)","segmentation_id":"b"}]}"#)
            assertRejected(withExtra(#""\#(escape)""#))
        }
    }

    func testRawControlCharactersAreRejectedInStrings() {
        for control in ["\u{0}", "\u{1}", "\n", "\t", "\u{1F}"] {
            assertRejected(#"{"d":[{"id":"a\#(control)","segmentation_id":"b"}]}"#)
            assertRejected(withExtra("\"\(control)\""))
        }
        // DEL is not a control character for JSON.
        XCTAssertEqual(only("{\"d\":[{\"id\":\"a\u{7F}\",\"segmentation_id\":\"b\"}]}")?.id, "a\u{7F}")
    }

    func testValidUTF8PassesThrough() {
        XCTAssertEqual(only(#"{"d":[{"id":"é😀中e\#u{301}","segmentation_id":"\#u{10FFFF}"}]}"#), Segment(id: "é😀中e\u{301}", segmentationId: "\u{10FFFF}"))
        XCTAssertEqual(try? decode(#"{"Ünïcødé":[]}"#).categories, [.other("ünïcødé"): []])
    }

    func testInvalidUTF8IsRejectedEvenInSkippedFields() {
        let invalid: [[UInt8]] = [[0xFF], [0xC0, 0x80], [0xC1, 0xBF], [0xED, 0xA0, 0x80], [0xE2, 0x82], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0x80], [0xE0, 0x80, 0x80], [0xF0, 0x80, 0x80, 0x80]]
        for sequence in invalid {
            let inId = Array(#"{"d":[{"id":"a"#.utf8) + sequence + Array(#"","segmentation_id":"b"}]}"#.utf8)
            XCTAssertEqual(reason(inId), "invalid JSON at root", "\(sequence)")
            let skipped = Array(#"{"d":[{"id":"a","segmentation_id":"b","x":""#.utf8) + sequence + Array(#""}]}"#.utf8)
            XCTAssertEqual(reason(skipped), "invalid JSON at root", "\(sequence)")
        }
    }

    /// The string scanner reads 8 bytes at a time: a quote, escape, control character or non-ASCII
    /// byte must be found at every offset of a word, and near the end of the body.
    func testSpecialBytesAreFoundAtEveryOffsetOfAWord() {
        for offset in 0..<20 {
            let prefix = String(repeating: "a", count: offset)
            XCTAssertEqual(only(#"{"d":[{"id":"\#(prefix)","segmentation_id":"b"}]}"#)?.id, prefix)
            XCTAssertEqual(only(#"{"d":[{"id":"\#(prefix)\"x","segmentation_id":"b"}]}"#)?.id, prefix + "\"x")
            XCTAssertEqual(only(#"{"d":[{"id":"\#(prefix)é€😀","segmentation_id":"b"}]}"#)?.id, prefix + "é€😀")
            XCTAssertEqual(only(#"{"d":[{"id":"\#(prefix)\u0041","segmentation_id":"b"}]}"#)?.id, prefix + "A")
            assertRejected(#"{"d":[{"id":"\#(prefix)\#u{1}","segmentation_id":"b"}]}"#)
            XCTAssertEqual(
                reason(Array(#"{"d":[{"id":"\#(prefix)"#.utf8) + [0xFF] + Array(#"","segmentation_id":"b"}]}"#.utf8)),
                "invalid JSON at root")
            // Unterminated, ending `offset` bytes into the string.
            assertRejected(#"{"d":[{"id":"\#(prefix)"#)
        }
    }

    // MARK: Whitespace, trailing bytes, byte order mark

    func testWhitespaceIsAllowedWhereverJSONAllowsIt() {
        let body = " \t\r\n{ \n\"d\" \t: \r[ \n{ \"id\" : \"a\" , \"x\" : [ 1 , { \"y\" : null } ] , \"segmentation_id\"\n:\t\"b\" } \n] } \n\t\r "
        XCTAssertEqual(only(body), Segment(id: "a", segmentationId: "b"))
    }

    func testOtherWhitespaceIsRejected() {
        for space in ["\u{0B}", "\u{0C}", "\u{A0}", "\u{2028}", "\u{FEFF}"] {
            assertRejected("{\(space)\"d\":[]}")
        }
    }

    func testTrailingGarbageIsRejected() {
        for tail in [" x", "{}", ",", "\u{0}", "]", "}", "1", "null", "/"] { assertRejected("{}" + tail) }
        XCTAssertEqual(try? decode("{} \n").categories, [:])
    }

    func testALeadingByteOrderMarkIsIgnored() {
        XCTAssertEqual(try? SegmentsResponseDecoder.decode([0xEF, 0xBB, 0xBF] + Array(#"{"d":[]}"#.utf8)).categories, [.other("d"): []])
    }

    func testAnEmptyOrBlankBodyIsAParseError() {
        XCTAssertEqual(reason(""), "empty body")
        XCTAssertEqual(reason(" \n"), "invalid JSON at root")
    }

    // MARK: Skipped values

    func testExtraFieldsOfEveryTypeAreSkipped() {
        let values = [
            "null", "true", "false", "0", "-0", "12", "-3.25", "1e5", "1E+2", "-0.5e-3", "1e01234567890", "123456789012345678901234567890",
            #""""#, #""text with \"escapes\" \\ \/ \u00e9 \uD83D\uDE00""#, "[]", "{}", #"[1,"a",null,true,{"k":[{}]}]"#,
            #"{"id":"not this one","segmentation_id":1,"nested":{"deeper":[[[]]]}}"#,
        ]
        for value in values { XCTAssertEqual(only(withExtra(value)), Segment(id: "a", segmentationId: "b"), value) }
    }

    func testMalformedNumbersAreRejectedEvenInSkippedFields() {
        for number in ["01", "-01", "-", "1.", ".5", "1e", "1e+", "1.5E", "+1", "1.e5", "0x10", "Infinity", "NaN", "1 2", "--1", "1_000"] {
            assertRejected(withExtra(number))
        }
    }

    func testMalformedLiteralsAndContainersAreRejected() {
        for value in ["tru", "nul", "truex", "True", "NULL", "[1 2]", #"{"a"}"#, #"{"a":}"#, "{1:2}", "[", "{", "]", #"{"a":1"#] {
            assertRejected(withExtra(value))
        }
    }

    // MARK: Depth

    private func nested(_ depth: Int, open: String, close: String) -> String {
        String(repeating: open, count: depth) + "0" + String(repeating: close, count: depth)
    }

    func testNestingUpTo512IsAcceptedAndDeeperIsRejected() {
        // The root object, the category array and the segment are 3 levels.
        XCTAssertNotNil(only(withExtra(nested(509, open: "[", close: "]"))))
        XCTAssertNotNil(only(withExtra(nested(509, open: #"{"k":"#, close: "}"))))
        assertRejected(withExtra(nested(510, open: "[", close: "]")))
        assertRejected(withExtra(nested(510, open: #"{"k":"#, close: "}")))
    }

    func testHostileNestingFailsWithoutExhaustingTheStack() {
        assertRejected(withExtra(String(repeating: "[", count: 200_000)))
        assertRejected(withExtra(String(repeating: #"{"k":"#, count: 100_000)))
        assertRejected(String(repeating: "[", count: 200_000))
        // Hostile nesting in an otherwise well-formed body.
        assertRejected(withExtra(nested(100_000, open: "[", close: "]")))
    }

    // MARK: Ids and keys

    func testIdsThatAreNotObjectIdsAreKeptVerbatim() {
        for id in ["", "a", "66140257F4CB337324209871", "66140257f4cb3373242098711", "6614025 f4cb337324209871", "ünï", "0"] {
            XCTAssertEqual(only(#"{"d":[{"id":"\#(id)","segmentation_id":"\#(id)x"}]}"#), Segment(id: id, segmentationId: id + "x"), id)
        }
    }

    /// The API's compact layout is matched in one step; every near miss of it must decode exactly as
    /// the general way decodes it.
    func testNearMissesOfTheCompactLayoutDecodeLikeAnyOtherSegment() {
        let id = "66140257f4cb337324209871"
        let segmentationId = "66140215fb50effc8a7218b4"
        let compact = #"{"id":"\#(id)","segmentation_id":"\#(segmentationId)"}"#
        XCTAssertEqual(only(#"{"d":[\#(compact)]}"#), Segment(id: id, segmentationId: segmentationId))
        let variants: [(String, Segment)] = [
            (#"{"id":"\#(id)", "segmentation_id":"\#(segmentationId)"}"#, Segment(id: id, segmentationId: segmentationId)),
            (#" {"id":"\#(id)","segmentation_id":"\#(segmentationId)"} "#, Segment(id: id, segmentationId: segmentationId)),
            (#"{"segmentation_id":"\#(segmentationId)","id":"\#(id)"}"#, Segment(id: id, segmentationId: segmentationId)),
            (#"{"id":"\#(id.uppercased())","segmentation_id":"\#(segmentationId)"}"#, Segment(id: id.uppercased(), segmentationId: segmentationId)),
            (#"{"id":"\#(id)","segmentation_id":"\#(segmentationId.dropLast())g"}"#, Segment(id: id, segmentationId: segmentationId.dropLast() + "g")),
            (#"{"id":"\#(id)","segmentation_id":"\#(segmentationId)","x":1}"#, Segment(id: id, segmentationId: segmentationId)),
            (#"{"id":"\#(id)","segmentation_id":"\#(segmentationId)","id":"other"}"#, Segment(id: id, segmentationId: segmentationId)),
            (#"{"id":"\#(id)1","segmentation_id":"\#(segmentationId)"}"#, Segment(id: id + "1", segmentationId: segmentationId)),
            (#"{"id":"\#(id.dropLast())","segmentation_id":"\#(segmentationId)"}"#, Segment(id: String(id.dropLast()), segmentationId: segmentationId)),
            (#"{"id":"\#(id)","segmentation_id":"6\#(segmentationId.dropFirst())"}"#, Segment(id: id, segmentationId: segmentationId)),
        ]
        for (segment, expected) in variants {
            XCTAssertEqual(only(#"{"d":[\#(segment)]}"#), expected, segment)
        }
        for broken in [String(compact.dropLast()), compact.replacingOccurrences(of: #""}"#, with: #"""#),
                       compact.replacingOccurrences(of: #":"\#(id)"#, with: #""\#(id)"#), compact + ","] {
            assertRejected(#"{"d":[\#(broken)]}"#)
        }
    }

    /// The compact match compares its punctuation in overlapping words: a change to any one byte
    /// outside the ids must leave the segment to the general way, which then agrees with the
    /// `JSONDecoder` reference (the same segment, or a rejection).
    func testEveryByteOfTheCompactLayoutIsCompared() {
        let id = "66140257f4cb337324209871"
        let segmentationId = "66140215fb50effc8a7218b4"
        let compact = Array(#"{"id":"\#(id)","segmentation_id":"\#(segmentationId)"}"#.utf8)
        let idRanges = [7..<31, 52..<76]
        XCTAssertEqual(String(decoding: compact[idRanges[0]], as: UTF8.self), id)
        XCTAssertEqual(String(decoding: compact[idRanges[1]], as: UTF8.self), segmentationId)
        for position in compact.indices where !idRanges.contains(where: { $0.contains(position) }) {
            for replacement in [UInt8(ascii: "X"), UInt8(ascii: " "), UInt8(ascii: "_")] where replacement != compact[position] {
                var segment = compact
                segment[position] = replacement
                // An intact segment follows, as in a real list: a wrongly accepted first one shows
                // as a response the reference does not give.
                let body = Array(#"{"d":["#.utf8) + segment + Array(",".utf8) + compact + Array("]}".utf8)
                let text = String(decoding: body, as: UTF8.self)
                let expected = Result { () throws(SegmentsError) in try ReferenceSegmentsDecoder.decode(body) }
                let actual = Result { () throws(SegmentsError) in try SegmentsResponseDecoder.decode(body) }
                switch (expected, actual) {
                case (.success(let reference), .success(let response)):
                    XCTAssertEqual(response, reference, text)
                case (.failure, .failure):
                    break
                default:
                    XCTFail("\(text): reference \(expected), parser \(actual)")
                }
            }
        }
    }

    func testARepeatedCategoryKeyKeepsTheFirstAndOnlyValidatesTheRest() throws {
        let response = try decode(#"{"d":[{"id":"a","segmentation_id":"b"}],"d":[{"id":"c","segmentation_id":"d"}],"d":[1],"d":null}"#)
        XCTAssertEqual(response.categories, [.other("d"): [Segment(id: "a", segmentationId: "b")]])
        // Spelled with an escape, or canonically equivalent: the same Swift string, so the same key.
        XCTAssertEqual(try decode(#"{"\u0064":[],"d":[{"id":"c","segmentation_id":"d"}]}"#).categories, [.other("d"): []])
        XCTAssertEqual(try decode("{\"\u{E9}\":[],\"e\u{301}\":[{\"id\":\"c\",\"segmentation_id\":\"d\"}]}").categories, [.other("\u{E9}"): []])
        // The repeat must still be valid JSON.
        assertRejected(#"{"d":[],"d":[1,]}"#)
        // The first value decides, even when a later one would be fine.
        XCTAssertEqual(reason(#"{"d":[1],"d":[]}"#), "expected Dictionary<String, Any> at d.0")
        // All three match what JSONDecoder did.
        for body in [#"{"d":[{"id":"a","segmentation_id":"b"}],"d":[1]}"#, #"{"\u0064":[],"d":[{"id":"c","segmentation_id":"d"}]}"#] {
            XCTAssertEqual(try decode(body), try ReferenceSegmentsDecoder.decode(Data(body.utf8)))
        }
    }

    func testKeysNamingOneCategoryAreMergedInDocumentOrder() throws {
        let response = try decode(#"{"Merchandise":[{"id":"1","segmentation_id":"s"}],"x":[],"MERCHANDISING":[{"id":"2","segmentation_id":"s"}],"merchandising":[{"id":"3","segmentation_id":"s"}]}"#)
        XCTAssertEqual(response[.merchandising].map(\.id), ["1", "2", "3"])
        XCTAssertEqual(Set(response.categories.keys), [.merchandising, .other("x")])
    }

    func testARepeatedSegmentFieldKeepsTheFirst() {
        XCTAssertEqual(only(#"{"d":[{"id":"a","id":"x","segmentation_id":"b","segmentation_id":"y"}]}"#), Segment(id: "a", segmentationId: "b"))
        XCTAssertEqual(only(#"{"d":[{"id":"a","id":null,"segmentation_id":"b","segmentation_id":[1]}]}"#), Segment(id: "a", segmentationId: "b"))
        XCTAssertEqual(only(#"{"d":[{"\u0069d":"a","id":"x","segmentation_id":"b"}]}"#), Segment(id: "a", segmentationId: "b"))
        XCTAssertEqual(reason(#"{"d":[{"id":null,"id":"a","segmentation_id":"b"}]}"#), "null where String expected at d.0.id")
    }

    // MARK: Reasons

    func testReasonTextsAreTheOnesJSONDecoderGave() {
        let cases: [(body: String, reason: String)] = [
            (#"{"d":[{"id":"a""#, "invalid JSON at root"),
            ("{x}", "invalid JSON at root"),
            (#"[{"id":"a","segmentation_id":"b"}]"#, "expected Dictionary<String, Any> at root"),
            (#""text""#, "expected Dictionary<String, Any> at root"),
            ("12", "expected Dictionary<String, Any> at root"),
            ("null", "null where Dictionary<String, Any> expected at root"),
            (#"{"data":{"discovery":[]}}"#, "expected Array<Any> at data"),
            (#"{"discovery":"none"}"#, "expected Array<Any> at discovery"),
            (#"{"discovery":null}"#, "null where Array<Any> expected at discovery"),
            (#"{"discovery":[{"id":"a","segmentation_id":"b"},2]}"#, "expected Dictionary<String, Any> at discovery.1"),
            (#"{"discovery":[null]}"#, "null where Dictionary<String, Any> expected at discovery.0"),
            (#"{"discovery":[{"segmentation_id":"b"}]}"#, "missing \"id\" at discovery.0"),
            (#"{"discovery":[{}]}"#, "missing \"id\" at discovery.0"),
            (#"{"discovery":[{"id":"a"}]}"#, "missing \"segmentation_id\" at discovery.0"),
            (#"{"discovery":[{"id":1,"segmentation_id":"b"}]}"#, "expected String at discovery.0.id"),
            (#"{"discovery":[{"id":{},"segmentation_id":"b"}]}"#, "expected String at discovery.0.id"),
            (#"{"discovery":[{"id":"a","segmentation_id":true}]}"#, "expected String at discovery.0.segmentation_id"),
            (#"{"discovery":[{"id":"a","segmentation_id":null}]}"#, "null where String expected at discovery.0.segmentation_id"),
            // `id` is checked first, whatever the order of the fields.
            (#"{"discovery":[{"segmentation_id":1,"id":[]}]}"#, "expected String at discovery.0.id"),
            (#"{"discovery":[{"segmentation_id":1}]}"#, "missing \"id\" at discovery.0"),
            (#"{"":[1]}"#, "expected Dictionary<String, Any> at .0"),
            (#"{"":[]}"#, "empty category key \"\""),
            (#"{" \t":[]}"#, "empty category key \" \t\""),
            // A syntax error anywhere wins over a shape error before it.
            (#"{"discovery":[1],"content":[1"#, "invalid JSON at root"),
            (#"{"discovery":null,"x":tru}"#, "invalid JSON at root"),
            // A blank key is reported only when everything else decoded.
            (#"{"":[],"discovery":[{"id":"a"}]}"#, "missing \"segmentation_id\" at discovery.0"),
        ]
        for (body, expected) in cases {
            XCTAssertEqual(reason(body), expected, body)
            XCTAssertEqual(referenceReason(body), expected, "the reference disagrees on \(body)")
        }
    }

    private func referenceReason(_ body: String) -> String? {
        do {
            _ = try ReferenceSegmentsDecoder.decode(Data(body.utf8))
            return nil
        } catch {
            guard case .malformedResponse(let reason) = error else { return "\(error)" }
            return reason
        }
    }

    // MARK: Input forms

    func testNonContiguousBodiesDecodeLikeContiguousOnes() throws {
        let text = #"{"discovery":[{"id":"66140257f4cb337324209871","segmentation_id":"66140215fb50effc8a7218b4"}],"content":[]}"#
        let bytes = Array(text.utf8)
        var dispatch = DispatchData.empty
        for chunk in [bytes[..<17], bytes[17..<40], bytes[40...]] {
            chunk.withUnsafeBytes { dispatch.append(DispatchData(bytes: $0)) }
        }
        XCTAssertGreaterThan(dispatch.regions.count, 1)
        XCTAssertEqual(try SegmentsResponseDecoder.decode(dispatch), try SegmentsResponseDecoder.decode(bytes))
        XCTAssertEqual(try SegmentsResponseDecoder.decode(Data(bytes)), try SegmentsResponseDecoder.decode(bytes))
        XCTAssertEqual(try SegmentsResponseDecoder.decode(bytes[...]), try SegmentsResponseDecoder.decode(bytes))
    }

    // MARK: Deliberate differences from JSONDecoder

    /// `JSONDecoder` accepts these; they are not RFC 8259 JSON and the parser rejects them.
    func testStricterThanJSONDecoderWhereJSONDecoderWasLenient() {
        let bodies: [[UInt8]] = [
            #"{"d":[{"id":"a","segmentation_id":"b"},]}"#, #"{"d":[],}"#, #"{"d":[{"id":"a","segmentation_id":"b",}]}"#,
            withExtra("[1,]"), withExtra("01"), withExtra("1."), withExtra("-"), withExtra(#""\q""#), withExtra(#""\uD800""#),
            withExtra("\"\u{1}\""),
        ].map { Array($0.utf8) } + [
            Array(#"{"d":[{"id":"a","segmentation_id":"b","x":""#.utf8) + [0xFF] + Array(#""}]}"#.utf8),
            [0x7B, 0x00, 0x7D, 0x00],  // `{}` in UTF-16LE
        ]
        for body in bodies {
            XCTAssertNoThrow(try ReferenceSegmentsDecoder.decode(body), "\(body)")
            XCTAssertEqual(reason(body), "invalid JSON at root", String(decoding: body, as: UTF8.self))
        }
    }
}
