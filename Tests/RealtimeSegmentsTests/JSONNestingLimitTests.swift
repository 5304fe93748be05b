import Foundation
import RealtimeSegments
import XCTest

/// `JSONDecoder.decodeUntrusted` keeps nesting deeper than 512 from `JSONDecoder`, which traps (the
/// process dies) when the 513th level is an array opened by the last byte. Such input cannot be
/// shown crashing here, in process: these tests hold the typed error instead.
final class JSONNestingLimitTests: XCTestCase {
    private struct AnyJSON: Decodable {
        init(from decoder: any Decoder) throws { _ = try decoder.singleValueContainer() }
    }

    private func nested(_ depth: Int, closed: Bool = false) -> String {
        String(repeating: "[", count: depth) + (closed ? String(repeating: "]", count: depth) : "")
    }

    private func assertDataCorrupted(_ data: Data, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue(JSONNestingLimit.isExceeded(by: data), what, file: file, line: line)
        XCTAssertThrowsError(try JSONDecoder().decodeUntrusted(AnyJSON.self, from: data), what, file: file, line: line) { error in
            guard case DecodingError.dataCorrupted = error else { return XCTFail("\(what): \(error)", file: file, line: line) }
        }
    }

    func testNestingUpTo512DecodesAndDeeperIsDataCorrupted() throws {
        XCTAssertNoThrow(try JSONDecoder().decodeUntrusted(AnyJSON.self, from: Data(nested(512, closed: true).utf8)))
        XCTAssertFalse(JSONNestingLimit.isExceeded(by: Data(nested(512).utf8)))
        assertDataCorrupted(Data(nested(513).utf8), "513 [ ending the input")
        assertDataCorrupted(Data(nested(513, closed: true).utf8), "513 closed")
        assertDataCorrupted(Data((String(repeating: #"[{"a":"#, count: 256) + "[").utf8), "arrays and objects")
        assertDataCorrupted(Data(([0xEF, 0xBB, 0xBF] + Array(nested(513).utf8))), "after a UTF-8 byte order mark")
    }

    func testBracketsInsideStringsDoNotCount() throws {
        let brackets = String(repeating: "[{", count: 600)
        let body = #"{"a":"\#(brackets)","b":"\"\\\#(brackets)\\"}"#
        XCTAssertFalse(JSONNestingLimit.isExceeded(by: Data(body.utf8)))
        XCTAssertNoThrow(try JSONDecoder().decodeUntrusted([String: String].self, from: Data(body.utf8)))
        // An escaped quote does not end the string; the brackets after the real end count.
        assertDataCorrupted(Data((#"["\"", "# + nested(512)).utf8), "after a string with an escaped quote")
    }

    /// `JSONDecoder` reads UTF-16 and UTF-32 too (and traps on them the same way), so depth is
    /// counted in the encoding it detects.
    func testUTF16AndUTF32AreCountedInTheirOwnEncoding() {
        let units = Array(nested(513).utf8)
        assertDataCorrupted(Data(units.flatMap { [$0, 0] }), "UTF-16LE")
        assertDataCorrupted(Data([0xFF, 0xFE] + units.flatMap { [$0, 0] }), "UTF-16LE with a byte order mark")
        assertDataCorrupted(Data(units.flatMap { [0, $0] }), "UTF-16BE")
        assertDataCorrupted(Data(units.flatMap { [$0, 0, 0, 0] }), "UTF-32LE")
        assertDataCorrupted(Data(units.flatMap { [0, 0, 0, $0] }), "UTF-32BE")
        XCTAssertFalse(JSONNestingLimit.isExceeded(by: Data(Array(nested(512).utf8).flatMap { [$0, 0] })))
    }
}
