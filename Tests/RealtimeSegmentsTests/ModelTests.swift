import Foundation
import XCTest

@testable import RealtimeSegments

/// SPEC §1: the model.
final class ModelTests: XCTestCase {
    func testSegmentDecodesAndEncodesWireKeys() throws {
        let json = #"{"id":"66140257f4cb337324209871","segmentation_id":"66140215fb50effc8a7218b4"}"#
        let decoded = try JSONDecoder().decode(Segment.self, from: Data(json.utf8))
        XCTAssertEqual(decoded, Segment(id: "66140257f4cb337324209871", segmentationId: "66140215fb50effc8a7218b4"))
        let encoded = try JSONSerialization.jsonObject(with: JSONEncoder().encode(decoded)) as? [String: String]
        XCTAssertEqual(encoded?["segmentation_id"], "66140215fb50effc8a7218b4")
        XCTAssertEqual(encoded?["id"], "66140257f4cb337324209871")
    }

    func testSegmentEqualityUsesBothFields() {
        XCTAssertEqual(Segment(id: "a", segmentationId: "b"), Segment(id: "a", segmentationId: "b"))
        XCTAssertNotEqual(Segment(id: "a", segmentationId: "b"), Segment(id: "a", segmentationId: "c"))
        XCTAssertNotEqual(Segment(id: "a", segmentationId: "b"), Segment(id: "x", segmentationId: "b"))
    }

    func testCategoryNamesAreCaseInsensitive() {
        XCTAssertEqual(SegmentCategory(name: "DISCOVERY"), .discovery)
        XCTAssertEqual(SegmentCategory(name: "Content"), .content)
        XCTAssertEqual(SegmentCategory.other("Custom_Future"), SegmentCategory(name: "custom_future"))
    }

    func testMerchandiseIsAcceptedAsMerchandisingInTheAPIAndOnTheWire() {
        XCTAssertEqual(SegmentCategory.merchandise, .merchandising)
        XCTAssertEqual(SegmentCategory(name: "merchandise"), .merchandising)
        XCTAssertEqual(SegmentCategory(name: "Merchandise").name, "merchandising")
    }

    func testUnknownCategoryIsKeptAsOther() {
        let category = SegmentCategory(name: "custom_future_category")
        XCTAssertEqual(category.kind, .other("custom_future_category"))
        XCTAssertEqual(SegmentCategory.discovery.kind, .discovery)
    }

    func testEmptyCategoryNameIsInvalid() {
        XCTAssertFalse(SegmentCategory(name: "").isValid)
        XCTAssertFalse(SegmentCategory.other("  ").isValid)
        XCTAssertTrue(SegmentCategory.content.isValid)
    }

    func testCallbackDataCopiesShareTheIdentityAndNewValuesDoNot() {
        let handler: @Sendable ([Segment]) -> Void = { _ in }
        let original = SegmentCallbackData(category: .discovery, isIncludeFirstLoad: false, onNewData: handler)
        let copy = original
        let rebuilt = SegmentCallbackData(category: .discovery, isIncludeFirstLoad: false, onNewData: handler)
        XCTAssertEqual(original, copy)
        XCTAssertNotEqual(original, rebuilt)
    }

    func testResponseMergesKeysThatNameTheSameCategory() {
        let merged = SegmentsResponse(wireCategories: [
            "merchandise": [segment(1)], "Merchandising": [segment(2)],
        ])
        XCTAssertEqual(Set(merged[.merchandising]), [segment(1), segment(2)])
        XCTAssertEqual(merged.categories.count, 1)
    }

    func testTrackedEventUsesWireKeys() throws {
        let event = TrackedEvent(
            customerIds: ["cookie": "c"], eventType: "view", timestamp: 12.5, properties: ["a": 1, "b": "x", "c": true])
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: JSONEncoder().encode(event)) as? [String: Any])
        XCTAssertEqual(Set(object.keys), ["customer_ids", "event_type", "timestamp", "properties"])
        XCTAssertEqual(object["customer_ids"] as? [String: String], ["cookie": "c"])
        XCTAssertEqual(object["event_type"] as? String, "view")
        XCTAssertEqual(object["timestamp"] as? Double, 12.5)
        let properties = try XCTUnwrap(object["properties"] as? [String: Any])
        XCTAssertEqual(Set(properties.keys), ["a", "b", "c"])
        XCTAssertEqual(properties["a"] as? Double, 1)
        XCTAssertEqual(properties["b"] as? String, "x")
        XCTAssertEqual(properties["c"] as? Bool, true)
    }

    func testJSONValueRoundTrips() throws {
        let value: JSONValue = ["s": "x", "n": 1.5, "b": true, "a": [1, "two"], "o": ["k": nil]]
        let decoded = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))
        XCTAssertEqual(decoded, value)
    }
}
