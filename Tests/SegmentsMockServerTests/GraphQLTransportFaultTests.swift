import RealtimeSegments
import SegmentsMockServer
import XCTest

/// How the in-memory transport reports each qualified-segments outcome (SPEC §9 mapping).
final class GraphQLTransportFaultTests: XCTestCase {
    private let query = QualifiedSegmentsQuery(userKey: .fsUserId, userValue: "u1", segmentsToCheck: [Fixtures.viewer.id])

    private func transport(_ profile: FaultProfile, seed: UInt64 = 1) -> MockSegmentsTransport {
        MockSegmentsTransport(
            backend: Fixtures.backendWithViewer(), faults: FaultPlan(seed: seed, profiles: [.qualifiedSegments: profile]))
    }

    func testSuccessReturnsTheQualifiedNames() async throws {
        let qualified = try await transport(.none).fetchQualifiedSegments(query, apiKey: "mock-key")

        XCTAssertEqual(qualified, [Fixtures.viewer.id])
    }

    func testInjected503IsFetchFailedWithTheStatus() async {
        await assertThrows(.fetchSegmentsFailed("503")) {
            try await transport(FaultProfile(errorRate: 1, errorStatuses: [503])).fetchQualifiedSegments(query, apiKey: "mock-key")
        }
    }

    func testInjected429IsFetchFailedWithTheStatus() async {
        await assertThrows(.fetchSegmentsFailed("429")) {
            try await transport(FaultProfile(errorRate: 1, errorStatuses: [429])).fetchQualifiedSegments(query, apiKey: "mock-key")
        }
    }

    func testEveryMalformedVariantIsADecodeError() async {
        let faulty = transport(FaultProfile(malformedRate: 1))
        for _ in 0..<9 {
            await assertThrows(.fetchSegmentsFailed("decode error")) {
                try await faulty.fetchQualifiedSegments(query, apiKey: "mock-key")
            }
        }
        XCTAssertEqual(faulty.faultCounts[.qualifiedSegments, .malformed], 9)
    }

    /// As `HTTPSegmentsTransport` reports the same fault: the body never fully arrives.
    func testTruncatedBodyIsANetworkErrorAsOverHTTP() async {
        await assertThrows(.fetchSegmentsFailed("network error")) {
            try await transport(FaultProfile(truncatedRate: 1)).fetchQualifiedSegments(query, apiKey: "mock-key")
        }
    }

    func testResetIsANetworkError() async {
        await assertThrows(.fetchSegmentsFailed("network error")) {
            try await transport(FaultProfile(resetRate: 1)).fetchQualifiedSegments(query, apiKey: "mock-key")
        }
    }

    func testHangIsANetworkErrorAfterTheMaxHang() async {
        await assertThrows(.fetchSegmentsFailed("network error")) {
            try await transport(FaultProfile(hangRate: 1, maxHang: .milliseconds(10)))
                .fetchQualifiedSegments(query, apiKey: "mock-key")
        }
    }

    func testCancellingAHangingCallIsANetworkError() async {
        let faulty = transport(FaultProfile(hangRate: 1, maxHang: .seconds(60)))
        let query = query
        let call = Task { () async -> SegmentsError? in
            do throws(SegmentsError) {
                _ = try await faulty.fetchQualifiedSegments(query, apiKey: "mock-key")
                return nil
            } catch {
                return error
            }
        }
        await waitUntil { faulty.faultCounts[.qualifiedSegments, .hang] == 1 }

        call.cancel()

        let error = await call.value
        XCTAssertEqual(error, .fetchSegmentsFailed("network error"))
    }

    func testUnknownUserIsAnInvalidIdentifier() async {
        let unknown = QualifiedSegmentsQuery(userKey: .vuid, userValue: "vuid_nobody", segmentsToCheck: [])

        await assertThrows(.invalidSegmentIdentifier) {
            try await transport(.none).fetchQualifiedSegments(unknown, apiKey: "mock-key")
        }
    }

    func testFailedCallsAreCountedAndFaultsCounted() async {
        let faulty = transport(FaultProfile(errorRate: 1))
        _ = try? await faulty.fetchQualifiedSegments(query, apiKey: "mock-key")
        _ = try? await faulty.fetchQualifiedSegments(query, apiKey: "mock-key")

        XCTAssertEqual(faulty.backend.requestCount(.qualifiedSegments), 2)
        XCTAssertEqual(faulty.faultCounts[.qualifiedSegments, .error], 2)
    }

    func testSameSeedGivesTheSameOutcomes() async {
        let profile = FaultProfile(errorRate: 0.2, errorStatuses: [500, 503], hangRate: 0.05, maxHang: .zero,
            malformedRate: 0.1, truncatedRate: 0.1, resetRate: 0.1)
        func outcomes(seed: UInt64) async -> [String] {
            let faulty = transport(profile, seed: seed)
            var outcomes: [String] = []
            for _ in 0..<100 {
                do {
                    outcomes.append("\(try await faulty.fetchQualifiedSegments(query, apiKey: "mock-key"))")
                } catch {
                    outcomes.append("\(error)")
                }
            }
            return outcomes
        }

        let first = await outcomes(seed: 5)
        let second = await outcomes(seed: 5)

        XCTAssertEqual(first, second)
        XCTAssertEqual(Set(first).count, 5, "success, 500, 503, decode error, network error: \(Set(first))")
    }
}
