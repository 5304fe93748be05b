@testable import RealtimeSegments
import XCTest

/// The segments parser does work linear in the body's size, whatever the keys: a hostile body of
/// repeated keys, or of many spellings of one category, must not make it re-read earlier keys per
/// key. Measured by the bytes it reads more than once (deterministic), never by time.
final class SegmentsResponseParserWorkTests: XCTestCase {
    /// Parses `body`, returning the categories and the bytes read more than once.
    private func parse(_ body: [UInt8]) throws -> (categories: [SegmentCategory: [Segment]], rereadBytes: Int) {
        var rereadBytes = 0
        let categories = try body.withUnsafeBufferPointer { bytes in
            try SegmentsResponseParser.parse(bytes, rereadBytes: &rereadBytes)
        }
        return (categories, rereadBytes)
    }

    /// `index` in five digits, so that bodies of twice the keys are twice as long.
    private func digits(_ index: Int) -> String {
        let text = String(index)
        return String(repeating: "0", count: max(0, 5 - text.count)) + text
    }

    /// `{"key00000":[],...,"key<n-1>":[],"key00000":[],...}`: `n` keys, then each of them again.
    private func repeatedKeys(_ count: Int) -> [UInt8] {
        let keys = (0..<count).map { #""key\#(digits($0))":[]"# }
        return Array(("{" + (keys + keys).joined(separator: ",") + "}").utf8)
    }

    /// `count` different spellings (upper/lower case) of one 16-letter key, each with one segment:
    /// all name one category, so they are merged.
    private func spellingsOfOneKey(_ count: Int) -> [UInt8] {
        let letters = Array("abcdefghijklmnop")
        let members = (0..<count).map { index in
            let key = String(letters.enumerated().map { bit, letter in
                index >> bit & 1 == 1 ? Character(letter.uppercased()) : letter
            })
            return #""\#(key)":[{"id":"\#(digits(index))","segmentation_id":"s"}]"#
        }
        return Array(("{" + members.joined(separator: ",") + "}").utf8)
    }

    /// Asserts that doubling the keys at most doubles the bytes re-read (plus a constant), and
    /// that they never exceed the body's own size.
    private func assertLinear(_ makeBody: (Int) -> [UInt8], file: StaticString = #filePath, line: UInt = #line) throws {
        var previous: Int?
        for count in [500, 1_000, 2_000] {
            let body = makeBody(count)
            let reread = try parse(body).rereadBytes
            XCTAssertLessThanOrEqual(reread, body.count, "\(count) keys, \(body.count) bytes", file: file, line: line)
            if let previous {
                XCTAssertLessThanOrEqual(reread, 2 * previous + 64, "\(count) keys against half as many", file: file, line: line)
            }
            previous = reread
        }
    }

    func testRepeatedKeysAreFoundInLinearWork() throws {
        try assertLinear(repeatedKeys)
    }

    func testManySpellingsOfOneCategoryAreMergedInLinearWork() throws {
        try assertLinear(spellingsOfOneKey)
        let merged = try parse(spellingsOfOneKey(1_000)).categories
        XCTAssertEqual(merged[SegmentCategory(name: "abcdefghijklmnop")]?.map(\.id), (0..<1_000).map(digits))
    }

    /// Repeats are told from new spellings both for keys read before the first repeat and after it.
    func testRepeatsAndSpellingsKeepTheirMeaningWhereverTheyCome() throws {
        let body = #"{"d":[{"id":"1","segmentation_id":"s"}],"D":[{"id":"2","segmentation_id":"s"}],"d":[{"id":"x","segmentation_id":"s"}],"\u0044":[{"id":"y","segmentation_id":"s"}],"e":[],"\u0064":[1],"E":[{"id":"3","segmentation_id":"s"}],"e":[{"id":"z","segmentation_id":"s"}]}"#
        let categories = try parse(Array(body.utf8)).categories
        XCTAssertEqual(categories[.other("d")]?.map(\.id), ["1", "2"])
        XCTAssertEqual(categories[.other("e")]?.map(\.id), ["3"])
        XCTAssertEqual(categories.count, 2)
    }
}
