@testable import RealtimeSegments
import XCTest

/// Issue 32: `SegmentCategory` is an enum a `switch` covers exhaustively, `.other(name)` included,
/// while equality, hashing and the wire name stay those of the normalized name (SPEC §1).
final class SegmentCategorySwitchTests: XCTestCase {
    /// An exhaustive switch with no `default`: it compiles only if these are all the cases.
    private func label(_ category: SegmentCategory) -> String {
        switch category {
        case .discovery: "discovery"
        case .merchandising: "merchandising"
        case .content: "content"
        case .other(let name): "other(\(name))"
        }
    }

    func testAnExhaustiveSwitchCoversTheKnownCasesAndOther() {
        XCTAssertEqual(label(.discovery), "discovery")
        XCTAssertEqual(label(.merchandising), "merchandising")
        XCTAssertEqual(label(.content), "content")
        XCTAssertEqual(label(.other("future")), "other(future)")
    }

    func testANameGivesItsKnownCaseCaseInsensitivelyAndTheLegacySpelling() {
        XCTAssertEqual(label(SegmentCategory(name: "Discovery")), "discovery")
        XCTAssertEqual(label(SegmentCategory(name: "MERCHANDISE")), "merchandising")
        XCTAssertEqual(label(SegmentCategory(name: "content")), "content")
        XCTAssertEqual(label(SegmentCategory(name: "Future_Category")), "other(future_category)")
        XCTAssertEqual(label(.merchandise), "merchandising")
    }

    func testALegacyStaticMatchesInASwitch() {
        let category = SegmentCategory(name: "merchandise")
        switch category {
        case .merchandise: break
        default: XCTFail("\(category) should match .merchandise")
        }
    }

    func testEqualityAndHashingFollowTheNormalizedName() {
        XCTAssertEqual(SegmentCategory.other("Discovery"), .discovery)
        XCTAssertEqual(SegmentCategory.other("merchandise"), .merchandising)
        XCTAssertEqual(SegmentCategory.other("Custom"), .other("custom"))
        XCTAssertNotEqual(SegmentCategory.discovery, .content)
        XCTAssertNotEqual(SegmentCategory.other("a"), .other("b"))
        XCTAssertEqual(Set<SegmentCategory>([.discovery, .other("DISCOVERY"), .other("x"), .other("X")]).count, 2)
        let byCategory: [SegmentCategory: Int] = [.discovery: 1, .other("custom"): 2]
        XCTAssertEqual(byCategory[.other("Discovery")], 1)
        XCTAssertEqual(byCategory[SegmentCategory(name: "CUSTOM")], 2)
    }

    func testTheWireNameIsNormalized() {
        XCTAssertEqual(SegmentCategory.discovery.name, "discovery")
        XCTAssertEqual(SegmentCategory.merchandise.name, "merchandising")
        XCTAssertEqual(SegmentCategory.other("Custom").name, "custom")
        XCTAssertEqual(SegmentCategory.other("Merchandise").name, "merchandising")
        XCTAssertEqual("\(SegmentCategory.content)", "content")
    }

    func testKindGivesAnOtherValueWithAKnownNameItsKnownCase() {
        XCTAssertEqual(label(SegmentCategory.other("Discovery").kind), "discovery")
        XCTAssertEqual(label(SegmentCategory.other("Custom").kind), "other(custom)")
    }

    func testDecodedCategoriesUseTheKnownCases() throws {
        let body = #"{"Discovery":[],"merchandise":[],"content":[],"Future":[]}"#
        let decoded = try SegmentsResponseDecoder.decode(Array(body.utf8))
        XCTAssertEqual(Set(decoded.categories.keys.map(label)), ["discovery", "merchandising", "content", "other(future)"])
    }
}
