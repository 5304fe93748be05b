import Foundation
@testable import RealtimeSegments
import XCTest

/// SPEC §9 wire: the exact GraphQL request and the response error table (notes A.5).
final class QualifiedWireTests: XCTestCase {
    private func decode(_ json: String, status: Int = 200) -> Result<[String], SegmentsError> {
        Result { () throws(SegmentsError) in try QualifiedSegmentsWire.decodeResponse(status: status, body: Array(json.utf8)) }
    }

    // MARK: User key

    func testUserKeyIsVuidForIdsStartingWithVuidUnderscoreInAnyCase() {
        for id in ["vuid_123", "VUID_abc", "Vuid_x", "vUiD_"] {
            XCTAssertEqual(QualifiedUserKey.key(for: id), .vuid, id)
        }
    }

    func testUserKeyIsFsUserIdOtherwise() {
        for id in ["jane", "vuid", "vuidx_1", "xvuid_1", "vuid-1"] {
            XCTAssertEqual(QualifiedUserKey.key(for: id), .fsUserId, id)
        }
    }

    // MARK: Request

    func testRequestBodyWithNoAudiencesIsExact() {
        let body = QualifiedSegmentsWire.requestBody(
            for: QualifiedSegmentsQuery(userKey: .fsUserId, userValue: "test-user", segmentsToCheck: []))
        XCTAssertEqual(
            String(decoding: body, as: UTF8.self),
            #"{"query":"query($userId: String, $audiences: [String]) {customer(fs_user_id: $userId) {audiences(subset: $audiences) {edges {node {name state}}}}}","variables":{"audiences":[],"userId":"test-user"}}"#)
    }

    func testRequestBodyWithTwoAudiencesIsExact() {
        let body = QualifiedSegmentsWire.requestBody(
            for: QualifiedSegmentsQuery(userKey: .vuid, userValue: "vuid_1", segmentsToCheck: ["a", "b"]))
        XCTAssertEqual(
            String(decoding: body, as: UTF8.self),
            #"{"query":"query($userId: String, $audiences: [String]) {customer(vuid: $userId) {audiences(subset: $audiences) {edges {node {name state}}}}}","variables":{"audiences":["a","b"],"userId":"vuid_1"}}"#)
    }

    func testRequestBodyHasExactlyQueryAndVariables() throws {
        let body = QualifiedSegmentsWire.requestBody(
            for: QualifiedSegmentsQuery(userKey: .fsUserId, userValue: "u/1\"", segmentsToCheck: ["x/y"]))
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: body) as? [String: Any])
        XCTAssertEqual(Set(object.keys), ["query", "variables"])
        let variables = try XCTUnwrap(object["variables"] as? [String: Any])
        XCTAssertEqual(variables["userId"] as? String, "u/1\"")
        XCTAssertEqual(variables["audiences"] as? [String], ["x/y"])
    }

    // MARK: Response table

    func testStatusFourHundredOrMoreFailsWithTheStatusWhateverTheBody() {
        let valid = #"{"data":{"customer":{"audiences":{"edges":[]}}}}"#
        XCTAssertEqual(decode(valid, status: 403), .failure(.fetchSegmentsFailed("403")))
        XCTAssertEqual(decode(valid, status: 400), .failure(.fetchSegmentsFailed("400")))
        XCTAssertEqual(decode("", status: 500), .failure(.fetchSegmentsFailed("500")))
    }

    func testRedirectStatusFailsWithTheStatusEvenWithAValidBody() {
        let valid = #"{"data":{"customer":{"audiences":{"edges":[{"node":{"name":"a","state":"qualified"}}]}}}}"#
        XCTAssertEqual(decode(valid, status: 302), .failure(.fetchSegmentsFailed("302")))
        XCTAssertEqual(decode(valid, status: 304), .failure(.fetchSegmentsFailed("304")))
        XCTAssertEqual(decode(valid, status: 300), .failure(.fetchSegmentsFailed("300")))
    }

    func testEveryStatusOutsideTwoHundredsFailsAndEveryTwoHundredIsRead() {
        let valid = #"{"data":{"customer":{"audiences":{"edges":[{"node":{"name":"a","state":"qualified"}}]}}}}"#
        for status in [100, 199, 300, 399, 400, 599] {
            XCTAssertEqual(decode(valid, status: status), .failure(.fetchSegmentsFailed(String(status))), "\(status)")
        }
        for status in [200, 204, 299] {
            XCTAssertEqual(decode(valid, status: status), .success(["a"]), "\(status)")
        }
    }

    func testBodyThatIsNotJSONIsADecodeError() {
        XCTAssertEqual(decode("not json"), .failure(.fetchSegmentsFailed("decode error")))
        XCTAssertEqual(decode(""), .failure(.fetchSegmentsFailed("decode error")))
    }

    func testJSONThatIsNotAnObjectIsADecodeError() {
        XCTAssertEqual(decode("[1, 2]"), .failure(.fetchSegmentsFailed("decode error")))
        XCTAssertEqual(decode("\"text\""), .failure(.fetchSegmentsFailed("decode error")))
    }

    func testInvalidIdentifierCodeIsInvalidSegmentIdentifier() {
        let body = #"{"errors":[{"message":"Exception while fetching data (/customer) : java.lang.RuntimeException: could not resolve _fs_user_id = asdsdaddddd","locations":[{"line":2,"column":3}],"path":["customer"],"extensions":{"code":"INVALID_IDENTIFIER_EXCEPTION","classification":"DataFetchingException"}}],"data":{"customer":null}}"#
        XCTAssertEqual(decode(body), .failure(.invalidSegmentIdentifier))
    }

    func testLegacyInvalidIdentifierClassificationIsInvalidSegmentIdentifier() {
        let body = #"{"errors":[{"message":"x","extensions":{"classification":"InvalidIdentifierException"}}],"data":{"customer":null}}"#
        XCTAssertEqual(decode(body), .failure(.invalidSegmentIdentifier))
    }

    func testOtherClassificationIsPassedThrough() {
        let body = #"{"errors":[{"message":"x","extensions":{"classification":"TestExceptionClass"}}],"data":{"customer":null}}"#
        XCTAssertEqual(decode(body), .failure(.fetchSegmentsFailed("TestExceptionClass")))
    }

    func testOnlyTheFirstErrorCounts() {
        let body = #"{"errors":[{"extensions":{"classification":"First"}},{"extensions":{"code":"INVALID_IDENTIFIER_EXCEPTION","classification":"Second"}}]}"#
        XCTAssertEqual(decode(body), .failure(.fetchSegmentsFailed("First")))
    }

    func testErrorWithoutClassificationFailsWithItsMessageEvenWithData() {
        XCTAssertEqual(
            decode(#"{"errors":[{"message":"x","extensions":{}}],"data":{"customer":null}}"#),
            .failure(.fetchSegmentsFailed("x")))
        XCTAssertEqual(
            decode(#"{"errors":[{"message":"rate limit exceeded"}],"data":{"customer":{"audiences":{"edges":[{"node":{"name":"a","state":"qualified"}}]}}}}"#),
            .failure(.fetchSegmentsFailed("rate limit exceeded")))
        XCTAssertEqual(
            decode(#"{"errors":[{"message":"y","extensions":{"code":"UNAUTHENTICATED"}}],"data":{"customer":{"audiences":{"edges":[]}}}}"#),
            .failure(.fetchSegmentsFailed("y")))
    }

    func testErrorWithNeitherClassificationNorMessageFailsWithTheUnclassifiedReason() {
        let data = #""data":{"customer":{"audiences":{"edges":[]}}}"#
        XCTAssertEqual(decode(#"{"errors":[{}],\#(data)}"#), .failure(.fetchSegmentsFailed("graphql error")))
        XCTAssertEqual(decode(#"{"errors":[{"message":""}],\#(data)}"#), .failure(.fetchSegmentsFailed("graphql error")))
        XCTAssertEqual(QualifiedSegmentsWire.unclassifiedErrorReason, "graphql error")
    }

    func testErrorsThatAreNotAnArrayOfObjectsAreADecodeError() {
        let data = #""data":{"customer":{"audiences":{"edges":[]}}}"#
        XCTAssertEqual(decode(#"{"errors":"boom",\#(data)}"#), .failure(.fetchSegmentsFailed("decode error")))
        XCTAssertEqual(decode(#"{"errors":["boom"],\#(data)}"#), .failure(.fetchSegmentsFailed("decode error")))
    }

    func testEmptyOrNullErrorsAreNoError() {
        let edges = #"{"customer":{"audiences":{"edges":[{"node":{"name":"a","state":"qualified"}}]}}}"#
        XCTAssertEqual(decode(#"{"errors":[],"data":\#(edges)}"#), .success(["a"]))
        XCTAssertEqual(decode(#"{"errors":null,"data":\#(edges)}"#), .success(["a"]))
    }

    func testMissingEdgesIsADecodeError() {
        XCTAssertEqual(decode(#"{"data":{}}"#), .failure(.fetchSegmentsFailed("decode error")))
        XCTAssertEqual(decode(#"{}"#), .failure(.fetchSegmentsFailed("decode error")))
        XCTAssertEqual(decode(#"{"data":{"customer":{"audiences":{}}}}"#), .failure(.fetchSegmentsFailed("decode error")))
    }

    func testEdgesThatAreNotAnArrayOfObjectsAreADecodeError() {
        XCTAssertEqual(decode(#"{"data":{"customer":{"audiences":{"edges":{}}}}}"#), .failure(.fetchSegmentsFailed("decode error")))
        XCTAssertEqual(decode(#"{"data":{"customer":{"audiences":{"edges":[1]}}}}"#), .failure(.fetchSegmentsFailed("decode error")))
        XCTAssertEqual(decode(#"{"data":{"customer":[{"audiences":{"edges":[]}}]}}"#), .failure(.fetchSegmentsFailed("decode error")))
    }

    func testEmptyEdgesIsSuccessWithNoSegments() {
        XCTAssertEqual(decode(#"{"data":{"customer":{"audiences":{"edges":[]}}}}"#), .success([]))
    }

    func testOnlyQualifiedNodesAreKeptInServerOrder() {
        let body = #"{"data":{"customer":{"audiences":{"edges":[{"node":{"name":"z","state":"qualified","description":"d"}},{"node":{"name":"b","state":"not_qualified"}},{"node":{"name":"a","state":"qualified"}},{"node":{"name":"c","state":"Qualified"}}]}}}}"#
        XCTAssertEqual(decode(body), .success(["z", "a"]))
    }

    func testNodesWithoutStringNameAndStateAreSkipped() {
        let body = #"{"data":{"customer":{"audiences":{"edges":[{"node":{"name":1,"state":"qualified"}},{"node":{"state":"qualified"}},{"node":{"name":"x"}},{"other":{}},{"node":{"name":"ok","state":"qualified"}}]}}}}"#
        XCTAssertEqual(decode(body), .success(["ok"]))
    }

    /// Apps log `error.localizedDescription`, as Optimizely's `LocalizedError` reasons allow: it
    /// read Foundation's "The operation could not be completed. (RealtimeSegments.SegmentsError
    /// error N.)" instead of the reference's reason.
    func testLocalizedDescriptionIsTheReferenceReason() {
        XCTAssertEqual((SegmentsError.fetchSegmentsFailed("403") as any Error).localizedDescription,
                       "Audience segments fetch failed (403).")
        XCTAssertEqual((SegmentsError.invalidSegmentIdentifier as any Error).localizedDescription,
                       "Audience segments fetch failed (invalid identifier)")
        XCTAssertEqual((SegmentsError.notFound as any Error).localizedDescription, SegmentsError.notFound.description)
    }
}
