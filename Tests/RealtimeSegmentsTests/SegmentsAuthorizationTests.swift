import RealtimeSegments
import XCTest

/// SPEC §7: the `authorization` header value of each scheme.
final class SegmentsAuthorizationTests: XCTestCase {
    func testTokenSchemeIsTokenSpaceTheToken() {
        XCTAssertEqual(SegmentsAuthorization.token("public-key").headerValue, "Token public-key")
    }

    func testBearerSchemeIsBearerSpaceTheToken() {
        XCTAssertEqual(SegmentsAuthorization.bearer("jwt.payload.sig").headerValue, "Bearer jwt.payload.sig")
    }
}
