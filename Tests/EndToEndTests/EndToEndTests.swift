import Foundation
import RealtimeSegments
import RealtimeSegmentsHTTP
import SegmentsMockServer
import XCTest

/// The engine and the mock server over loopback HTTP (issue 3): the real wire protocol end to end.
final class EndToEndTests: XCTestCase {
    private let vip = Segment(id: "66140257f4cb337324209871", segmentationId: "66140215fb50effc8a7218b4")

    func testAnEventTrackedOverHTTPReachesACallbackAsAMembershipChange() throws {
        let e2e = try EndToEndFixture()
        e2e.backend.addRule(SegmentRule(
            category: .discovery, segment: vip, entersAfter: EventThreshold(eventType: "purchase", count: 3)))
        let received = LockBox<[[Segment]]>([])
        e2e.client.segmentation.addCallback(
            callbackData: SegmentCallbackData(category: .discovery, isIncludeFirstLoad: true) { received.append($0) })
        e2e.client.start()
        e2e.settle()
        e2e.advance(.seconds(5))
        XCTAssertEqual(received.value, [[]], "first load: not a member yet")

        for _ in 0..<3 { try e2e.client.trackEvent(eventType: "purchase", properties: ["price": 10]) }
        e2e.settle()
        XCTAssertEqual(e2e.backend.eventCount(forCookie: e2e.cookie, projectToken: EndToEndFixture.project.token), 3)
        let change = e2e.backend.lastChange(forCookie: e2e.cookie, category: .discovery, projectToken: EndToEndFixture.project.token)
        XCTAssertEqual(change?.segments, [vip], "the rule fired on the server")
        e2e.advance(.seconds(5))
        XCTAssertEqual(received.value, [[], [vip]], "the membership change reached the callback")
    }

    func testIdentifyLinksIdsOnceAndTheServerSeesTheHardId() throws {
        let e2e = try EndToEndFixture()
        e2e.client.segmentation.addCallback(
            callbackData: SegmentCallbackData(category: .content, isIncludeFirstLoad: false) { _ in })
        e2e.client.start()
        try e2e.client.identifyCustomer(customerIds: ["registered": "jane@example.com"], properties: ["plan": "gold"])
        e2e.settle()
        e2e.advance(.seconds(5))
        XCTAssertEqual(e2e.backend.linkCalls, 1)
        try e2e.client.trackEvent(eventType: "view")
        e2e.settle()
        e2e.advance(.seconds(5))
        XCTAssertEqual(e2e.backend.linkCalls, 1, "unchanged hard ids are not linked again")
        XCTAssertEqual(e2e.backend.requestCount(.fetchSegments), 2)
        let customer = e2e.backend.customer(externalIdName: "registered", value: "jane@example.com")
        XCTAssertEqual(customer?.cookies.contains(e2e.cookie), true)
        XCTAssertEqual(customer?.properties["plan"], "gold")
    }

    func testWithoutTheBatchEndpointEachEventIsPostedToCustomersEventsInOrder() throws {
        let e2e = try EndToEndFixture(useBatchEndpoint: false, flushingMode: .manual)
        e2e.client.start()
        let types = ["view", "cart", "purchase", "refund"]
        for (index, type) in types.enumerated() {
            try e2e.client.trackEvent(eventType: type, properties: ["step": .number(Double(index))])
        }
        e2e.client.flush()
        e2e.settle()
        XCTAssertEqual(e2e.backend.requestCount(.trackEvent), types.count, "one customers/events request per event")
        XCTAssertEqual(e2e.backend.requestCount(.trackBatch), 0)
        let stored = e2e.backend.events(forCookie: e2e.cookie, projectToken: EndToEndFixture.project.token)
        XCTAssertEqual(stored.map(\.eventType), types, "uploaded in the order tracked")
        XCTAssertEqual(stored.map { $0.properties["step"] }, (0..<types.count).map { .number(Double($0)) })
        XCTAssertEqual(Set(stored.map { $0.customerIds["cookie"] }), [e2e.cookie])
    }

    /// JSON has no NaN or infinity: such a property goes out as null with a `Segments:` error, and
    /// the upload neither fails nor holds back the events behind it.
    func testANumberJSONCannotCarryIsSentAsNullAndHoldsNothingBack() throws {
        let e2e = try EndToEndFixture(flushingMode: .manual)
        e2e.client.start()
        try e2e.client.trackEvent(eventType: "view", properties: ["price": .number(.nan), "qty": 2])
        try e2e.client.trackEvent(eventType: "cart")
        e2e.client.flush()
        e2e.settle()
        let stored = e2e.backend.events(forCookie: e2e.cookie, projectToken: EndToEndFixture.project.token)
        XCTAssertEqual(stored.map(\.eventType), ["view", "cart"])
        XCTAssertEqual(stored.first?.properties, ["price": nil, "qty": 2])
        XCTAssertEqual(e2e.client.statistics.uploadFailures, 0)
        XCTAssertEqual(
            e2e.logs.count(prefix: "Segments: POST /track/v2/projects/\(EndToEndFixture.project.token)/batch carries numbers JSON cannot carry, sent as null: commands[0].data.properties.price (nan)"),
            1, "\(e2e.logs.all)")
    }

    func testAWrongKeyIsUnauthorizedWithTheFetchFailedLine() throws {
        let e2e = try EndToEndFixture(authorization: .token("wrong"))
        e2e.client.start()
        XCTAssertThrowsError(try runBlocking { try await e2e.client.getSegments(category: .discovery) }) { error in
            XCTAssertEqual(error as? SegmentsError, .unauthorized(status: 401))
        }
        XCTAssertEqual(e2e.logs.count(prefix: "Segments: Fetch of segments failed: not authorized (HTTP 401)"), 1)
    }

    /// SPEC §7: a private key pair authenticates as HTTP Basic; the server checks id and secret.
    func testAKeyPairAuthenticatesAsBasicAndAWrongSecretIsUnauthorized() throws {
        let pair = try XCTUnwrap(EndToEndFixture.project.keyPair)
        let e2e = try EndToEndFixture(authorization: .basic(keyId: pair.id, secret: pair.secret))
        e2e.client.start()
        e2e.backend.setSegments([vip], category: .content, forCookie: e2e.cookie, projectToken: EndToEndFixture.project.token)
        XCTAssertEqual(try runBlocking { try await e2e.client.getSegments(category: .content) }, [vip])
        try e2e.client.trackEvent(eventType: "view")
        e2e.settle()
        XCTAssertEqual(e2e.backend.eventCount(forCookie: e2e.cookie, projectToken: EndToEndFixture.project.token), 1)

        let wrong = try EndToEndFixture(authorization: .basic(keyId: pair.id, secret: "not-the-secret"))
        wrong.client.start()
        XCTAssertThrowsError(try runBlocking { try await wrong.client.getSegments(category: .content) }) { error in
            XCTAssertEqual(error as? SegmentsError, .unauthorized(status: 401))
        }
    }

    func testAnUnknownProjectIsNotFound() throws {
        let e2e = try EndToEndFixture(projectToken: "no-such-project")
        e2e.client.start()
        XCTAssertThrowsError(try runBlocking { try await e2e.client.getSegments(category: .discovery) }) { error in
            XCTAssertEqual(error as? SegmentsError, .notFound)
        }
    }

    func testGetSegmentsOverHTTPReturnsTheRequestedCategory() throws {
        let e2e = try EndToEndFixture()
        e2e.client.start()
        e2e.backend.setSegments([vip], category: .content, forCookie: e2e.cookie, projectToken: EndToEndFixture.project.token)
        let content = try runBlocking { try await e2e.client.getSegments(category: .content) }
        XCTAssertEqual(content, [vip])
    }

    func testABadBaseURLIsAConfigurationError() {
        XCTAssertThrowsError(try HTTPTransportConfiguration(baseURL: "not a url at all"))
        XCTAssertThrowsError(try HTTPTransportConfiguration(baseURL: "ftp://example.com"))
        XCTAssertThrowsError(try HTTPTransportConfiguration(baseURL: "http://"))
        // Paths are appended to the base URL: a query or fragment would end up before them.
        // A port too large for an integer reads as no port at all (`URL.port` is nil): requests
        // would go to the scheme's default port.
        for url in [
            "http://example.com/?x=1", "http://example.com#top", "http://example.com:0", "http://example.com:99999",
            "http://example.com:99999999999999999999999", "http://[::1]:99999999999999999999999/api",
        ] {
            XCTAssertThrowsError(try HTTPTransportConfiguration(baseURL: url), url) { error in
                guard case .invalidArgument(let reason) = error as? SegmentsError else { return XCTFail("\(url): \(error)") }
                XCTAssertTrue(reason.contains("baseURL"), reason)
            }
        }
        XCTAssertNoThrow(try HTTPTransportConfiguration(baseURL: "http://example.com:65535/api/"))
    }

    /// A URL set after creation is held to the same rules: the port AsyncHTTPClient cannot
    /// represent trapped at the first request when `baseURL` was a plain property.
    func testABadBaseURLSetLaterIsAConfigurationErrorAndChangesNothing() throws {
        var configuration = try HTTPTransportConfiguration(baseURL: "https://api.example.com")
        for url in ["http://example.com:99999", "ftp://example.com", "http://example.com/?x=1"] {
            XCTAssertThrowsError(try configuration.setBaseURL(URL(string: url)!), url) { error in
                guard case .invalidArgument(let reason) = error as? SegmentsError else { return XCTFail("\(url): \(error)") }
                XCTAssertTrue(reason.contains("baseURL"), reason)
            }
        }
        XCTAssertEqual(configuration.baseURL.absoluteString, "https://api.example.com")
        try configuration.setBaseURL(URL(string: "http://127.0.0.1:8080/")!)
        XCTAssertEqual(configuration.baseURL.absoluteString, "http://127.0.0.1:8080/")
    }
}
