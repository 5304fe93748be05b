import Atomics
import Foundation
@testable import RealtimeSegments
import SegmentsCPUHints
import XCTest

/// The claims of a parallel delivery's shares: from the front in ascending order, from the back in
/// descending order, every share exactly once, also with threads claiming from both ends at once.
/// These also run under `swift test --sanitize=thread` in CI.
final class ShareClaimsTests: XCTestCase {
    private var iterations: Int {
        ProcessInfo.processInfo.environment["RS_STRESS_ITERATIONS"].flatMap(Int.init) ?? 3_000
    }

    func testTheEndsClaimInOppositeOrderUntilTheyMeet() {
        withClaims(shares: 5) { claims in
            XCTAssertEqual(claims.claim(from: .front), 0)
            XCTAssertEqual(claims.claim(from: .back), 4)
            XCTAssertEqual(claims.claim(from: .front), 1)
            XCTAssertEqual(claims.claim(from: .back), 3)
            XCTAssertEqual(claims.claim(from: .front), 2)
            XCTAssertNil(claims.claim(from: .back), "the ends met: every share is claimed")
            XCTAssertNil(claims.claim(from: .front))
        }
    }

    func testOneEndAloneClaimsEveryShare() {
        withClaims(shares: 3) { claims in
            XCTAssertEqual([claims.claim(from: .front), claims.claim(from: .front), claims.claim(from: .front)], [0, 1, 2])
            XCTAssertNil(claims.claim(from: .front))
        }
        withClaims(shares: 3) { claims in
            XCTAssertEqual([claims.claim(from: .back), claims.claim(from: .back), claims.claim(from: .back)], [2, 1, 0])
            XCTAssertNil(claims.claim(from: .back))
        }
    }

    func testNoSharesMeansNoClaims() {
        withClaims(shares: 0) { claims in
            XCTAssertNil(claims.claim(from: .front))
            XCTAssertNil(claims.claim(from: .back))
        }
    }

    /// Both ends share one word: the largest count must not spill from one half into the other.
    func testTheLargestCountKeepsBothEnds() {
        withClaims(shares: ShareClaims.maximumShares) { claims in
            XCTAssertEqual(claims.claim(from: .back), ShareClaims.maximumShares - 1)
            XCTAssertEqual(claims.claim(from: .front), 0)
            XCTAssertEqual(claims.claim(from: .back), ShareClaims.maximumShares - 2)
        }
    }

    func testOddCPUsClaimFromTheBackAndTheRestFromTheFront() {
        XCTAssertEqual(ShareClaims.End.forCPU(0), .front)
        XCTAssertEqual(ShareClaims.End.forCPU(1), .back)
        XCTAssertEqual(ShareClaims.End.forCPU(2), .front)
        XCTAssertEqual(ShareClaims.End.forCPU(7), .back)
        XCTAssertEqual(ShareClaims.End.forCPU(-1), .front, "an unknown CPU claims from the front, as one counter would")
    }

    #if os(Linux)
    /// On Linux the ends follow the CPU number the system reports, so it must report one.
    func testLinuxReportsTheCurrentCPU() {
        XCTAssertGreaterThanOrEqual(segments_current_cpu(), 0)
    }
    #endif

    /// Four threads, two at each end, claim until nothing is left: each share is claimed exactly
    /// once, and each thread's claims run in its end's order.
    func testThreadsAtBothEndsClaimEveryShareExactlyOnce() {
        let shares = 1_000
        for _ in 0..<iterations {
            withClaims(shares: shares) { claims in
                let counts = (0..<shares).map { _ in ManagedAtomic<Int>(0) }
                let outOfOrder = ManagedAtomic<Int>(0)
                DispatchQueue.concurrentPerform(iterations: 4) { thread in
                    let end: ShareClaims.End = thread % 2 == 0 ? .front : .back
                    var previous: Int?
                    while let share = claims.claim(from: end) {
                        counts[share].wrappingIncrement(ordering: .relaxed)
                        if let previous, end == .front ? share <= previous : share >= previous {
                            outOfOrder.wrappingIncrement(ordering: .relaxed)
                        }
                        previous = share
                    }
                }
                let wrong = counts.indices.filter { counts[$0].load(ordering: .relaxed) != 1 }
                XCTAssertEqual(wrong, [], "shares not claimed exactly once")
                XCTAssertEqual(outOfOrder.load(ordering: .relaxed), 0, "claims out of their end's order")
            }
        }
    }

    private func withClaims(shares: Int, _ body: (ShareClaims) -> Void) {
        let storage = UnsafeMutablePointer<UnsafeAtomic<UInt64>.Storage>.allocate(capacity: 1)
        defer { storage.deinitialize(count: 1); storage.deallocate() }
        body(ShareClaims(shares: shares, storage: storage))
    }
}
