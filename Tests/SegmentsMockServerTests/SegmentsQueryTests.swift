import RealtimeSegments
import SegmentsMockServer
import XCTest

final class SegmentsQueryTests: XCTestCase {
    func testUnknownCookieHasEveryRuleCategoryPresentButEmpty() {
        let backend = SegmentsBackend()
        backend.addRule(Fixtures.viewerRule)
        backend.addRule(SegmentRule(
            category: .content, segment: Fixtures.reader, entersAfter: (eventType: "read", count: 1)))

        let response = backend.segments(forCookie: "never-seen", projectToken: "mock-project")

        XCTAssertEqual(response?.categories, [.discovery: [], .content: []])
    }

    func testUnknownProjectTokenHasNoResponse() {
        XCTAssertNil(SegmentsBackend().segments(forCookie: "c1", projectToken: "nope"))
    }

    func testScriptedCategoryIsPresentEvenWhenEmpty() {
        let backend = SegmentsBackend()

        backend.setSegments([], category: .other("loyalty"), forCookie: "c1")

        XCTAssertEqual(backend.segments(forCookie: "c1", projectToken: "mock-project")?.categories, [.other("loyalty"): []])
    }
}
