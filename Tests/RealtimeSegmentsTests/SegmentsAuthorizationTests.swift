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

    /// RFC 7617's own example pair.
    func testBasicSchemeIsBase64OfTheKeyIdAColonAndTheSecret() {
        XCTAssertEqual(
            SegmentsAuthorization.basic(keyId: "Aladdin", secret: "open sesame").headerValue,
            "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
    }

    /// The pair is encoded as UTF-8 (RFC 7617 §2.1's charset).
    func testBasicSchemeEncodesTheSecretAsUTF8() {
        XCTAssertEqual(SegmentsAuthorization.basic(keyId: "id", secret: "é").headerValue, "Basic aWQ6w6k=")
    }
}
