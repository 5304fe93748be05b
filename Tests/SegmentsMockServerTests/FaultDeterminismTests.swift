import RealtimeSegments
import SegmentsMockServer
import XCTest

final class FaultDeterminismTests: XCTestCase {
    private let profile = FaultProfile(
        errorRate: 0.2, errorStatuses: [500, 503, 429], hangRate: 0.05, maxHang: .zero, malformedRate: 0.1,
        truncatedRate: 0.1, resetRate: 0.1)

    /// The outcome of each of `count` fetches, in order: `nil` for success.
    private func outcomes(seed: UInt64, count: Int = 200) async -> [SegmentsError?] {
        let transport = MockSegmentsTransport(
            backend: SegmentsBackend(), faults: FaultPlan(seed: seed, profiles: [.fetchSegments: profile]))
        var outcomes: [SegmentsError?] = []
        for _ in 0..<count {
            do {
                _ = try await transport.fetchSegments(cookie: "c1", context: Fixtures.context)
                outcomes.append(nil)
            } catch {
                outcomes.append(error)
            }
        }
        return outcomes
    }

    func testSameSeedAndRequestSequenceGiveTheSameFaults() async {
        let first = await outcomes(seed: 42)
        let second = await outcomes(seed: 42)

        XCTAssertEqual(first, second)
        XCTAssertTrue(first.contains(nil) && first.contains(.timeout) && first.contains(.rateLimited()))
    }

    /// A rate that is not a number counts as 0: it used to make every kind after it never happen.
    func testARateThatIsNotANumberCountsAsZeroAndTheOtherKindsStillHappen() async {
        let transport = MockSegmentsTransport(
            backend: SegmentsBackend(),
            faults: FaultPlan(seed: 1, profiles: [.fetchSegments: FaultProfile(errorRate: 1, errorStatuses: [500], hangRate: .nan)]))
        for _ in 0..<20 {
            do {
                _ = try await transport.fetchSegments(cookie: "c1", context: Fixtures.context)
                XCTFail("expected the error every time")
            } catch {
                XCTAssertEqual(error, .serverError(status: 500))
            }
        }
    }

    /// An error fault is an error status: a status outside 400...599 in the profile is left out
    /// (a 200 with an error body, or a 1xx that NIO cannot follow with a body, is no fault).
    func testAnErrorFaultAnswersOnlyWithAnErrorStatus() async {
        let transport = MockSegmentsTransport(
            backend: SegmentsBackend(),
            faults: FaultPlan(seed: 1, profiles: [.fetchSegments: FaultProfile(errorRate: 1, errorStatuses: [200, 102, 503])]))
        for _ in 0..<6 {
            do {
                _ = try await transport.fetchSegments(cookie: "c1", context: Fixtures.context)
                XCTFail("an error fault was answered as a success")
            } catch {
                XCTAssertEqual(error, .serverError(status: 503))
            }
        }
        let onlySuccesses = MockSegmentsTransport(
            backend: SegmentsBackend(), faults: FaultPlan(seed: 1, profiles: [.fetchSegments: FaultProfile(errorRate: 1, errorStatuses: [200])]))
        do {
            _ = try await onlySuccesses.fetchSegments(cookie: "c1", context: Fixtures.context)
            XCTFail("an error fault was answered as a success")
        } catch {
            XCTAssertEqual(error, .serverError(status: 500), "no error status left: 500")
        }
    }

    func testDifferentSeedsGiveDifferentFaults() async {
        let first = await outcomes(seed: 42)
        let second = await outcomes(seed: 43)

        XCTAssertNotEqual(first, second)
    }

    func testEndpointsDrawFromIndependentStreams() async throws {
        let plan = FaultPlan.everyEndpoint(FaultProfile(errorRate: 0.5), seed: 7)
        let alone = MockSegmentsTransport(backend: SegmentsBackend(), faults: plan)
        let interleaved = MockSegmentsTransport(backend: SegmentsBackend(), faults: plan)
        var aloneOutcomes: [Bool] = []
        var interleavedOutcomes: [Bool] = []

        for _ in 0..<50 {
            aloneOutcomes.append((try? await alone.fetchSegments(cookie: "c", context: Fixtures.context)) != nil)
            // Requests to another endpoint in between must not shift the fetch stream.
            try? await interleaved.trackEvents([Fixtures.event("a", cookie: "c")], context: Fixtures.context)
            interleavedOutcomes.append((try? await interleaved.fetchSegments(cookie: "c", context: Fixtures.context)) != nil)
        }

        XCTAssertEqual(aloneOutcomes, interleavedOutcomes)
    }

    func testFaultCountsMatchTheInjectedOutcomes() async {
        let transport = MockSegmentsTransport(
            backend: SegmentsBackend(), faults: FaultPlan(seed: 9, profiles: [.fetchSegments: profile]))
        var resets = 0
        for _ in 0..<100 {
            do {
                _ = try await transport.fetchSegments(cookie: "c1", context: Fixtures.context)
            } catch {
                if case .connectionFailed = error { resets += 1 }
            }
        }

        XCTAssertEqual(transport.faultCounts[.fetchSegments, .reset], resets)
        XCTAssertEqual(
            transport.faultCounts.total,
            [FaultKind.error, .hang, .malformed, .truncated, .reset].map { transport.faultCounts.total($0) }.reduce(0, +))
    }
}
