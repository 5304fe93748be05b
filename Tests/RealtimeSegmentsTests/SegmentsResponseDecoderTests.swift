import Foundation
import RealtimeSegments
import XCTest

/// SPEC §7: the response shape; a body of another shape is a parse error, never "no data".
final class SegmentsResponseDecoderTests: XCTestCase {
    private func decode(_ body: String) throws(SegmentsError) -> SegmentsResponse {
        try SegmentsResponseDecoder.decode(Data(body.utf8))
    }

    private func assertMalformed(_ body: String, file: StaticString = #filePath, line: UInt = #line) {
        do {
            _ = try decode(body)
            XCTFail("expected a parse error for \(body)", file: file, line: line)
        } catch {
            guard case .malformedResponse = error else {
                return XCTFail("expected malformedResponse, got \(error)", file: file, line: line)
            }
        }
    }

    func testBareObjectOfCategoriesDecodes() throws {
        let body = """
            {"discovery":[{"id":"66140257f4cb337324209871","segmentation_id":"66140215fb50effc8a7218b4"}],
             "merchandising":[],"content":[{"id":"a","segmentation_id":"b"}]}
            """
        let response = try decode(body)
        XCTAssertEqual(response[.discovery], [Segment(id: "66140257f4cb337324209871", segmentationId: "66140215fb50effc8a7218b4")])
        XCTAssertEqual(response.categories[.merchandising], [])
        XCTAssertEqual(response[.content], [Segment(id: "a", segmentationId: "b")])
    }

    func testServerOrderAndDuplicatesAreKept() throws {
        let response = try decode(#"{"discovery":[{"id":"b","segmentation_id":"1"},{"id":"a","segmentation_id":"1"},{"id":"b","segmentation_id":"1"}]}"#)
        XCTAssertEqual(response[.discovery].map(\.id), ["b", "a", "b"])
    }

    func testUnknownCategoryKeysAreKept() throws {
        let response = try decode(#"{"custom_future_category":[{"id":"a","segmentation_id":"b"}]}"#)
        XCTAssertEqual(response[.other("custom_future_category")].count, 1)
    }

    func testExtraSegmentFieldsAreIgnored() throws {
        let response = try decode(#"{"content":[{"id":"a","segmentation_id":"b","name":"x"}]}"#)
        XCTAssertEqual(response[.content], [Segment(id: "a", segmentationId: "b")])
    }

    func testEmptyObjectIsAValidResponseWithNoCategories() throws {
        XCTAssertTrue(try decode("{}").categories.isEmpty)
    }

    func testEnvelopeIsAParseError() { assertMalformed(#"{"success":true,"data":{"discovery":[]}}"#) }
    func testNumericIdIsAParseError() { assertMalformed(#"{"discovery":[{"id":1,"segmentation_id":"b"}]}"#) }
    func testMissingSegmentationIdIsAParseError() { assertMalformed(#"{"discovery":[{"id":"a"}]}"#) }
    func testTopLevelArrayIsAParseError() { assertMalformed(#"[{"id":"a","segmentation_id":"b"}]"#) }
    func testInvalidJSONIsAParseError() { assertMalformed(#"{"discovery":[{"id":"a""#) }
    func testEmptyBodyIsAParseError() { assertMalformed("") }
    func testEmptyCategoryKeyIsAParseError() { assertMalformed(#"{"":[]}"#) }
}
