import RealtimeSegments
import RealtimeSegmentsTesting
import XCTest

/// The defaults SPEC names (§3 debounce and max-wait, §6 the pull cache's TTL, §9 the qualified
/// cache), pinned exactly: the clock-driven tests pin them only to a range (a 4.5 s debounce
/// passed them all).
final class SpecDefaultsTests: XCTestCase {
    func testTheConfigurationsDefaultsAreTheSpecs() {
        let configuration = SegmentsConfiguration(projectToken: "p", transport: InMemorySegmentsTransport())
        XCTAssertEqual(configuration.debounce, .seconds(5))
        XCTAssertEqual(configuration.maxWait, .seconds(30))
        XCTAssertEqual(configuration.cacheTTL, .seconds(5))
        let qualified = QualifiedSegmentsConfiguration(apiKey: "k", segmentsToCheck: [])
        XCTAssertEqual(qualified.cacheSize, 100)
        XCTAssertEqual(qualified.cacheTimeout, .seconds(600))
    }
}
