import Foundation
@testable import RealtimeSegments
import XCTest

/// SPEC §10: what the setters do to one visitor's segments, and the attribute overlay.
final class ReportingSegmentsTests: XCTestCase {
    private func visitor(_ fixture: Fixture, _ id: String = "visitor-1") throws -> ReportingVisitor {
        try fixture.client.reportingVisitor(visitorId: id)
    }

    func testAnEmptyVisitorIdIsRejected() {
        let fixture = Fixture()
        XCTAssertThrowsError(try fixture.client.reportingVisitor(visitorId: "")) { error in
            XCTAssertEqual(error as? SegmentsError, .invalidArgument("visitorId is empty"))
        }
    }

    func testANewVisitorHasEmptySegments() throws {
        XCTAssertEqual(try visitor(Fixture()).segments, ReportingSegments())
    }

    func testDefaultSegmentsMergeAndKeepKeysNotGiven() throws {
        let visitor = try visitor(Fixture())
        visitor.setDefaultSegments(["country": "DE"])
        visitor.setDefaultSegments(["campaign": "spring"])
        XCTAssertEqual(visitor.segments, ReportingSegments(country: "DE", campaign: "spring"))
    }

    func testAGivenKeyOverwritesItsSegment() throws {
        let visitor = try visitor(Fixture())
        visitor.setDefaultSegments(["country": "DE", "browser": "firefox"])
        visitor.setDefaultSegments(["country": "FR"])
        XCTAssertEqual(visitor.segments, ReportingSegments(country: "FR", browser: "firefox"))
    }

    func testEachOfTheSixKeysMapsToItsField() throws {
        let fixture = Fixture()
        let expected: [String: ReportingSegments] = [
            "country": ReportingSegments(country: "x"),
            "browser": ReportingSegments(browser: "x"),
            "devices": ReportingSegments(devices: "x"),
            "source": ReportingSegments(source: "x"),
            "campaign": ReportingSegments(campaign: "x"),
            "visitorType": ReportingSegments(visitorType: "x"),
        ]
        XCTAssertEqual(Set(expected.keys), Set(ReportingSegmentKey.allCases.map(\.rawValue)))
        for (key, segments) in expected {
            let visitor = try visitor(fixture, "visitor-\(key)")
            visitor.setDefaultSegments([key: "x"])
            XCTAssertEqual(visitor.segments, segments, key)
        }
    }

    func testAnUnknownKeyIsWarnedAndIgnoredWhileKnownKeysLand() throws {
        let fixture = Fixture()
        let visitor = try visitor(fixture)
        visitor.setDefaultSegments(["country": "DE", "planet": "mars"])
        XCTAssertEqual(visitor.segments, ReportingSegments(country: "DE"))
        let warnings = fixture.logs.all.filter { $0.level == .warning }.map(\.message)
        XCTAssertEqual(warnings, ["Segments: Unknown reporting segment key 'planet' ignored for visitor visitor-1"])
    }

    func testCustomSegmentsAppendWithoutDeduplication() throws {
        let visitor = try visitor(Fixture())
        visitor.setCustomSegments(["seg-1", "seg-2"])
        visitor.setCustomSegments(["seg-2", "seg-3"])
        XCTAssertEqual(visitor.segments.customSegments, ["seg-1", "seg-2", "seg-2", "seg-3"])
    }

    func testTheTwoSettersDoNotInterfere() throws {
        let visitor = try visitor(Fixture())
        visitor.setDefaultSegments(["country": "DE"])
        visitor.setCustomSegments(["vip"])
        visitor.setDefaultSegments(["source": "ads"])
        XCTAssertEqual(visitor.segments, ReportingSegments(country: "DE", source: "ads", customSegments: ["vip"]))
    }

    func testVisitorsAreIndependentAndContextsOfOneIdShareSegments() throws {
        let fixture = Fixture()
        try visitor(fixture, "a").setDefaultSegments(["country": "DE"])
        try visitor(fixture, "b").setDefaultSegments(["country": "FR"])
        XCTAssertEqual(try visitor(fixture, "a").segments.country, "DE")
        XCTAssertEqual(try visitor(fixture, "b").segments.country, "FR")
    }

    func testTheOverlayAddsDefaultSegmentsButExplicitAttributesWin() throws {
        let visitor = try visitor(Fixture())
        visitor.setDefaultSegments(["country": "DE", "campaign": "spring"])
        let attributes = visitor.attributesForAudienceEvaluation(overlaying: ["country": .string("FR"), "age": .number(30)])
        XCTAssertEqual(attributes, ["country": .string("FR"), "campaign": .string("spring"), "age": .number(30)])
    }

    func testCustomSegmentsAreNotOverlaid() throws {
        let visitor = try visitor(Fixture())
        visitor.setCustomSegments(["vip"])
        XCTAssertEqual(visitor.attributesForAudienceEvaluation(overlaying: [:]), [:])
    }

    func testJSONKeysAreCamelCaseAndNilFieldsAreOmitted() throws {
        let all = ReportingSegments(
            country: "DE", browser: "b", devices: "d", source: "s", campaign: "c", visitorType: "new", customSegments: ["x"])
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: JSONEncoder().encode(all)) as? [String: Any])
        XCTAssertEqual(
            Set(object.keys),
            ["country", "browser", "devices", "source", "campaign", "visitorType", "customSegments"])
        XCTAssertEqual(try JSONDecoder().decode(ReportingSegments.self, from: JSONEncoder().encode(all)), all)
        let sparse = try JSONSerialization.jsonObject(with: JSONEncoder().encode(ReportingSegments(country: "DE"))) as? [String: Any]
        XCTAssertEqual(sparse.map { Set($0.keys) }, ["country", "customSegments"])
    }

    func testMissingCustomSegmentsDecodeAsEmpty() throws {
        let decoded = try JSONDecoder().decode(ReportingSegments.self, from: Data(#"{"visitorType":"new"}"#.utf8))
        XCTAssertEqual(decoded, ReportingSegments(visitorType: "new"))
    }
}
