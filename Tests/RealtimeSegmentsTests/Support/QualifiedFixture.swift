import Foundation
@testable import RealtimeSegments
import RealtimeSegmentsTesting
import XCTest

/// A client configured for qualified segments on a manual clock and an in-memory transport. The
/// client is never started: qualified segments do not need the engine thread.
final class QualifiedFixture: Sendable {
    static let apiKey = "odp-key"
    static let segments = ["a", "b", "c"]

    let clock = ManualClock()
    let transport = InMemorySegmentsTransport()
    let logs = LogCapture()
    let client: SegmentsClient

    init(
        apiKey: String? = QualifiedFixture.apiKey,
        segmentsToCheck: [String] = QualifiedFixture.segments,
        cacheSize: Int = 100,
        cacheTimeout: Duration = .seconds(600),
        transport: (any SegmentsTransport)? = nil
    ) {
        var configuration = SegmentsConfiguration(projectToken: "token", transport: transport ?? self.transport)
        configuration.clock = clock
        configuration.logger = logs.makeLogger()
        configuration.qualifiedSegments = QualifiedSegmentsConfiguration(
            apiKey: apiKey, segmentsToCheck: segmentsToCheck, cacheSize: cacheSize, cacheTimeout: cacheTimeout)
        client = SegmentsClient(configuration: configuration)
        self.transport.defaultQualifiedSegments = ["a"]
    }

    func user(_ userId: String) -> QualifiedUserContext {
        // An empty id is the only failure, and fixtures never pass one.
        try! client.createUserContext(userId: userId)
    }

    var cache: QualifiedSegmentsCache { client.qualifiedSegmentsCache }

    /// Starts a completion-form fetch and returns an expectation fulfilled with its outcome.
    func startFetch(
        _ user: QualifiedUserContext, options: [QualifiedSegmentOption] = [], outcome: Locked<[SegmentsError?]>? = nil
    ) -> XCTestExpectation {
        let done = XCTestExpectation(description: "fetch of \(user.userId) completed")
        user.fetchQualifiedSegments(options: options) { error in
            outcome?.withLock { $0.append(error) }
            done.fulfill()
        }
        return done
    }
}

/// A transport that knows nothing of qualified segments.
struct SegmentsOnlyTransport: SegmentsTransport {
    func trackEvents(_ events: [TrackedEvent], context: SegmentsRequestContext) async throws(SegmentsError) {}
    func identifyCustomer(_ update: CustomerUpdate, context: SegmentsRequestContext) async throws(SegmentsError) {}
    func linkCustomerIds(cookie: String, externalIds: [String: String], context: SegmentsRequestContext)
        async throws(SegmentsError) {}
    func fetchSegments(cookie: String, context: SegmentsRequestContext) async throws(SegmentsError) -> SegmentsResponse {
        SegmentsResponse()
    }
}
