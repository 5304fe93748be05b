@testable import SegmentsBenchKit
import XCTest

/// The costs gate reads callgrind's output: instructions while collection was on, and calls per
/// edge, counting a runtime entry point that jumps to another (`swift_bridgeObjectRetain` →
/// `swift_retain`) once.
final class CallgrindProfileTests: XCTestCase {
    private let uncompressed = """
        # callgrind format
        version: 1
        creator: callgrind-3.19.0
        events: Ir
        fn=measured
        5 100
        cfn=swift_bridgeObjectRetain
        calls=10 0
        5 220
        cfn=malloc
        calls=3 0
        5 300
        fn=swift_bridgeObjectRetain
        5 20
        cfn=swift_retain
        calls=999999 0
        5 200
        fn=swift_allocObject
        cfn=swift_slowAlloc
        calls=4 0
        5 90
        fn=measured2
        cfn=swift_allocObject
        calls=4 0
        5 140
        fn=swift_slowAlloc
        cfn=malloc
        calls=888 0
        5 50
        totals: 1234
        """

    func testTotalsAreTheCollectedInstructions() throws {
        XCTAssertEqual(try CallgrindProfile(parsing: uncompressed).instructions, 1234)
    }

    func testARuntimeEntryPointReachedThroughAnotherCountsOnce() throws {
        let profile = try CallgrindProfile(parsing: uncompressed)
        XCTAssertEqual(profile.calls(to: CostProbe.retainFunctions, notFrom: CostProbe.releaseFunctions), 10)
        XCTAssertEqual(profile.calls(to: CostProbe.allocationFunctions), 3 + 4, "malloc from code, and swift_slowAlloc from swift_allocObject")
    }

    func testCompressedNamesAreResolved() throws {
        let compressed = """
            events: Ir
            fn=(1) measured
            5 10
            cfn=(2) malloc
            calls=2 0
            5 30
            fn=(3) other
            cfn=(2)
            calls=5 0
            5 30
            summary: 70
            """
        let profile = try CallgrindProfile(parsing: compressed)
        XCTAssertEqual(profile.instructions, 70)
        XCTAssertEqual(profile.calls(to: ["malloc"]), 7)
        XCTAssertEqual(profile.calls[.init(caller: "other", callee: "malloc")], 5)
    }

    func testAnOutputWithoutCountsIsAnError() {
        XCTAssertThrowsError(try CallgrindProfile(parsing: "version: 1\ncreator: callgrind\n"))
    }

    func testEveryRegionNamesTheFunctionsItIsCountedIn() {
        for region in CostRegion.allCases {
            XCTAssertFalse(region.toggleFunctions.isEmpty, "\(region)")
        }
        XCTAssertEqual(CostRegion.trackEvent.toggleFunctions, ["*10CostRegionO18measuredTrackEvent*"])
    }
}
