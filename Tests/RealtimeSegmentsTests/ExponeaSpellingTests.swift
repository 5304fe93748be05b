import RealtimeSegments
import XCTest

/// Code written for Exponea's SDK, whose categories carry their segments, names them as calls
/// (the seed documents: `category: .merchandise()`, `getSegments(category: .content())`); it
/// compiles here unchanged and means the same categories.
final class ExponeaSpellingTests: XCTestCase {
    func testCategoriesNamedAsCallsAreTheSameCategories() {
        let callback = SegmentCallbackData(category: .merchandise(), isIncludeFirstLoad: false) { _ in }
        XCTAssertEqual(callback.category, .merchandising)
        let categories: [SegmentCategory] = [.discovery(), .merchandising(), .content()]
        XCTAssertEqual(categories, [.discovery, .merchandising, .content])
    }
}
