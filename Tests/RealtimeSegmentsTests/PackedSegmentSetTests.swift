import XCTest

@_spi(Benchmarks) @testable import RealtimeSegments

/// SPEC §4: a category's change test compares sets of (id, segmentationId) pairs.
final class PackedSegmentSetTests: XCTestCase {
    func testObjectIdsArePacked() {
        XCTAssertTrue(PackedSegmentSet([segment(1), segment(2)]).isPacked)
    }

    func testOrderAndDuplicatesAreIgnored() {
        let a = PackedSegmentSet([segment(1), segment(2), segment(3)])
        let b = PackedSegmentSet([segment(3), segment(1), segment(2), segment(1)])
        XCTAssertEqual(a, b)
        XCTAssertEqual(b.count, 3)
    }

    func testADifferentSegmentationIdIsADifferentSegment() {
        XCTAssertNotEqual(PackedSegmentSet([segment(1, segmentation: 1)]), PackedSegmentSet([segment(1, segmentation: 2)]))
    }

    func testAddedOrRemovedSegmentIsADifference() {
        XCTAssertNotEqual(PackedSegmentSet([segment(1)]), PackedSegmentSet([segment(1), segment(2)]))
        XCTAssertNotEqual(PackedSegmentSet([segment(1), segment(2)]), PackedSegmentSet([segment(2)]))
    }

    func testEmptySetsAreEqual() {
        XCTAssertEqual(PackedSegmentSet([]), PackedSegmentSet([]))
    }

    func testIdsThatAreNotObjectIdsStillWork() {
        let a = PackedSegmentSet([Segment(id: "vip", segmentationId: "tier"), Segment(id: "new", segmentationId: "tier")])
        let b = PackedSegmentSet([Segment(id: "new", segmentationId: "tier"), Segment(id: "vip", segmentationId: "tier")])
        XCTAssertFalse(a.isPacked)
        XCTAssertEqual(a, b)
        XCTAssertNotEqual(a, PackedSegmentSet([Segment(id: "vip", segmentationId: "tier")]))
    }

    func testUpperCaseHexIsComparedAsTheStringItIs() {
        let lower = Segment(id: "66140257f4cb337324209871", segmentationId: "66140215fb50effc8a7218b4")
        let upper = Segment(id: "66140257F4CB337324209871", segmentationId: "66140215fb50effc8a7218b4")
        XCTAssertNotEqual(PackedSegmentSet([lower]), PackedSegmentSet([upper]))
        XCTAssertEqual(PackedSegmentSet([upper]), PackedSegmentSet([upper]))
    }

    func testParsingRejectsWrongLengthsAndCharacters() {
        XCTAssertNil(SegmentId.parseObjectId("66140257f4cb33732420987"))
        XCTAssertNil(SegmentId.parseObjectId("66140257f4cb3373242098712"))
        XCTAssertNil(SegmentId.parseObjectId("66140257f4cb33732420987g"))
        let parsed = SegmentId.parseObjectId("0000000000000001000000ff")
        XCTAssertEqual(parsed?.high, 1)
        XCTAssertEqual(parsed?.low, 0xff)
    }

    func testMixedPackedAndStringSetsAreNeverEqual() {
        XCTAssertNotEqual(PackedSegmentSet([segment(1)]), PackedSegmentSet([segment(1), Segment(id: "x", segmentationId: "y")]))
    }

    /// The changed categories, after checking that none is listed twice (a category listed twice
    /// would be delivered twice in one check).
    private func changed(
        from before: LastKnownState?, to after: LastKnownState, shown: Set<SegmentCategory> = [],
        using comparer: inout SegmentSetComparer, file: StaticString = #filePath, line: UInt = #line
    ) -> Set<SegmentCategory> {
        let changed = LastKnownState.changedCategories(from: before, to: after, shown: shown, using: &comparer)
        XCTAssertEqual(changed.count, Set(changed).count, "a category listed twice: \(changed)", file: file, line: line)
        return Set(changed)
    }

    func testDiffReportsAppearingDisappearingAndChangedCategories() {
        let ids = ["cookie": "c"]
        let before = LastKnownState(customerIds: ids, response: response([.discovery: [1], .content: [2], .merchandising: [3]]))
        let after = LastKnownState(customerIds: ids, response: response([.discovery: [1], .content: [4], .other("new"): []]))
        var comparer = SegmentSetComparer()
        XCTAssertEqual(
            changed(from: before, to: after, using: &comparer), [.content, .merchandising, .other("new")])
    }

    func testDiffAgainstAnotherCustomerOrNoStateMarksEveryResponseCategory() {
        let before = LastKnownState(customerIds: ["cookie": "a"], response: response([.discovery: [1]]))
        let after = LastKnownState(customerIds: ["cookie": "b"], response: response([.discovery: [1], .content: []]))
        var comparer = SegmentSetComparer()
        XCTAssertEqual(changed(from: before, to: after, using: &comparer), [.discovery, .content])
        XCTAssertEqual(changed(from: nil, to: after, using: &comparer), [.discovery, .content])
        // Shown categories the response lacks are changed too (delivered as []), once each.
        XCTAssertEqual(
            changed(from: before, to: after, shown: [.discovery, .merchandising], using: &comparer),
            [.discovery, .content, .merchandising])
    }

    func testDiffIgnoresOrderAndDuplicatesWithinACategory() {
        let ids = ["cookie": "c"]
        let before = LastKnownState(customerIds: ids, response: response([.discovery: [1, 2, 3], .content: [4, 5]]))
        let after = LastKnownState(customerIds: ids, response: response([.discovery: [3, 1, 2, 1], .content: [5, 4, 6]]))
        var comparer = SegmentSetComparer()
        XCTAssertEqual(changed(from: before, to: after, using: &comparer), [.content])
    }
}

/// SPEC §4 through ``SegmentSetComparer``, the engine's category comparison: in order first, then as
/// sets in buffers it reuses.
final class SegmentSetComparerTests: XCTestCase {
    private let vip = Segment(id: "vip", segmentationId: "tier")
    private let new = Segment(id: "new", segmentationId: "tier")

    func testEqualListsInTheSameOrderAreTheSameSet() {
        var comparer = SegmentSetComparer()
        XCTAssertTrue(comparer.holdTheSameSet([segment(1), segment(2)], [segment(1), segment(2)]))
        XCTAssertTrue(comparer.holdTheSameSet([], []))
        XCTAssertTrue(comparer.holdTheSameSet([vip, new], [vip, new]))
    }

    func testOrderAndDuplicatesAreIgnored() {
        var comparer = SegmentSetComparer()
        XCTAssertTrue(comparer.holdTheSameSet([segment(1), segment(2), segment(3)], [segment(3), segment(1), segment(2)]))
        XCTAssertTrue(comparer.holdTheSameSet([segment(1), segment(2)], [segment(2), segment(1), segment(2)]))
        XCTAssertTrue(comparer.holdTheSameSet([vip, new], [new, vip, new]))
    }

    func testADifferenceAnywhereIsFound() {
        var comparer = SegmentSetComparer()
        XCTAssertFalse(comparer.holdTheSameSet([segment(1), segment(2)], [segment(1), segment(3)]))
        XCTAssertFalse(comparer.holdTheSameSet([segment(1, segmentation: 1)], [segment(1, segmentation: 2)]))
        XCTAssertFalse(comparer.holdTheSameSet([segment(1), segment(2)], [segment(1)]))
        XCTAssertFalse(comparer.holdTheSameSet([], [segment(1)]))
        XCTAssertFalse(comparer.holdTheSameSet([vip, new], [vip, Segment(id: "new", segmentationId: "other")]))
    }

    func testAListWithAnIdThatIsNotAnObjectIdNeverEqualsOneWithout() {
        var comparer = SegmentSetComparer()
        XCTAssertFalse(comparer.holdTheSameSet([segment(1)], [segment(1), vip]))
        XCTAssertFalse(comparer.holdTheSameSet([vip, segment(1)], [segment(1)]))
    }

    func testAnObjectIdSpelledOutForDeliveryEqualsTheFetchedOne() {
        let fetched = [segment(1), segment(2)]
        var comparer = SegmentSetComparer()
        XCTAssertTrue(comparer.holdTheSameSet(fetched, fetched.spelledOut()))
        XCTAssertTrue(comparer.holdTheSameSet(fetched.reversed(), fetched.spelledOut()))
    }

    /// The buffers keep what an earlier comparison packed; a later, shorter comparison must not see it.
    func testReusedBuffersDoNotLeakAnEarlierComparison() {
        var comparer = SegmentSetComparer()
        let long = (1...50).map { segment($0) }
        XCTAssertTrue(comparer.holdTheSameSet(long, long.reversed()))
        XCTAssertFalse(comparer.holdTheSameSet([segment(2), segment(1)], [segment(1), segment(3)]))
        XCTAssertTrue(comparer.holdTheSameSet([segment(2), segment(1)], [segment(1), segment(2)]))
        // A left list that stops packing part of the way leaves its buffer partly filled.
        XCTAssertFalse(comparer.holdTheSameSet([segment(1), vip], [segment(1), segment(2)]))
        XCTAssertTrue(comparer.holdTheSameSet([segment(7)], [segment(7), segment(7)]))
    }

    /// Against `Set` equality on random lists drawn from a small pool (ObjectIds, other ids, two
    /// segmentations), with one comparer reused throughout as the engine reuses it.
    func testAgreesWithSetEqualityOnRandomLists() {
        var generator = SplitMix64(seed: 0x5E75)
        let objectIds = (0..<6).flatMap { [segment($0, segmentation: 1), segment($0, segmentation: 2)] }
        let others = [vip, new, Segment(id: "66140257F4CB337324209871", segmentationId: "66140215fb50effc8a7218b4")]
        var comparer = SegmentSetComparer()
        var same = 0
        for round in 0..<4_000 {
            let pool = round % 3 == 0 ? objectIds + others : objectIds
            let left = (0..<Int.random(in: 0...8, using: &generator)).map { _ in pool.randomElement(using: &generator)! }
            let right: [Segment]
            switch Int.random(in: 0..<3, using: &generator) {
            case 0: right = left.map { $0 }  // equal, in another buffer: the in-order path
            case 1: right = left.shuffled(using: &generator) + left.prefix(Int.random(in: 0...2, using: &generator))
            default: right = (0..<Int.random(in: 0...8, using: &generator)).map { _ in pool.randomElement(using: &generator)! }
            }
            let expected = Set(left) == Set(right)
            XCTAssertEqual(comparer.holdTheSameSet(left, right), expected, "\(left) vs \(right)")
            XCTAssertEqual(comparer.holdTheSameSet(right, left), expected, "\(right) vs \(left)")
            if expected { same += 1 }
        }
        // Both outcomes were exercised well.
        XCTAssertGreaterThan(same, 1_000)
        XCTAssertGreaterThan(4_000 - same, 1_000)
    }

    /// The signature ignores order and duplicates (so it never calls equal sets different), and
    /// tells most lists that differ by one segment apart on its own.
    func testSignaturesIgnoreOrderAndDuplicatesAndTellMostChangesApart() throws {
        var generator = SplitMix64(seed: 0x516)
        var toldApart = 0
        for round in 0..<1_000 {
            let list = (0..<10).map { segment(round * 100 + $0, segmentation: Int.random(in: 1...3, using: &generator)) }
            let reordered = list.shuffled(using: &generator) + list.prefix(3)
            XCTAssertEqual(SegmentSetComparer.signature(list), SegmentSetComparer.signature(reordered))
            var changed = list
            changed[Int.random(in: 0..<10, using: &generator)] = segment(round * 100 + 50)
            if try XCTUnwrap(SegmentSetComparer.signature(changed)) != XCTUnwrap(SegmentSetComparer.signature(list)) { toldApart += 1 }
        }
        XCTAssertGreaterThan(toldApart, 800)
        XCTAssertNil(SegmentSetComparer.signature([vip]))
    }

    /// Diff edge cases: duplicates on either side, one side empty, ids that differ only in case.
    func testDiffEdgeCases() {
        var comparer = SegmentSetComparer()
        let a = segment(1), b = segment(2)
        XCTAssertTrue(comparer.holdTheSameSet([a, a, b], [b, a, b]))
        XCTAssertTrue(comparer.holdTheSameSet([a], [a, a]))
        XCTAssertFalse(comparer.holdTheSameSet([], [a]))
        XCTAssertFalse(comparer.holdTheSameSet([a], []))
        XCTAssertTrue(comparer.holdTheSameSet([], []))
        let hex = segment(0xABCDEF)
        let upper = Segment(id: hex.id.uppercased(), segmentationId: hex.segmentationId.uppercased())
        XCTAssertNotEqual(upper.id, hex.id)
        XCTAssertFalse(comparer.holdTheSameSet([hex], [upper]), "ids are strings: case matters")
        XCTAssertFalse(comparer.holdTheSameSet([upper], [hex]), "ids are strings: case matters")
        let composed = Segment(id: "caf\u{E9}", segmentationId: "s"), decomposed = Segment(id: "cafe\u{301}", segmentationId: "s")
        XCTAssertEqual(comparer.holdTheSameSet([composed], [decomposed]), composed == decomposed, "agrees with ==")
        let empty = Segment(id: "", segmentationId: "")
        XCTAssertTrue(comparer.holdTheSameSet([empty, a], [a, empty, empty]))
        XCTAssertFalse(comparer.holdTheSameSet([empty], [Segment(id: "", segmentationId: "x")]))
        let huge = Segment(id: String(repeating: "f", count: 100_000), segmentationId: "s")
        XCTAssertTrue(comparer.holdTheSameSet([huge, a], [a, huge]))
        XCTAssertFalse(comparer.holdTheSameSet([huge], [Segment(id: String(repeating: "f", count: 99_999), segmentationId: "s")]))
    }
}

/// The word-at-a-time hex parse against a per-character reference, on every byte value in every
/// position and on random ids.
final class ObjectIdParseTests: XCTestCase {
    private func reference(_ string: String) -> (high: UInt64, low: UInt32)? {
        let bytes = Array(string.utf8)
        guard bytes.count == 24 else { return nil }
        var high: UInt64 = 0
        var low: UInt64 = 0
        for (index, byte) in bytes.enumerated() {
            let nibble: UInt64
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = UInt64(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = UInt64(byte - UInt8(ascii: "a") + 10)
            default: return nil
            }
            if index < 16 { high = high << 4 | nibble } else { low = low << 4 | nibble }
        }
        return (high, UInt32(low))
    }

    private func assertSame(_ string: String, file: StaticString = #filePath, line: UInt = #line) {
        let parsed = SegmentId.parseObjectId(string)
        let expected = reference(string)
        XCTAssertEqual(parsed?.high, expected?.high, string, file: file, line: line)
        XCTAssertEqual(parsed?.low, expected?.low, string, file: file, line: line)
    }

    func testEveryByteValueInEveryPositionAgreesWithTheReference() {
        let base = Array("0123456789abcdef01234567".utf8)
        for position in 0..<24 {
            for value in UInt8(0)...UInt8(127) {
                var bytes = base
                bytes[position] = value
                assertSame(String(decoding: bytes, as: UTF8.self))
            }
        }
    }

    func testRandomIdsAgreeWithTheReference() {
        var generator = SplitMix64(seed: 0x0B1EC71D)
        let alphabet = Array("0123456789abcdefABCDEFgxyz".utf8)
        for _ in 0..<20_000 {
            let bytes = (0..<24).map { _ in
                Bool.random(using: &generator) ? alphabet[Int.random(in: 0..<16, using: &generator)]
                    : alphabet.randomElement(using: &generator)!
            }
            assertSame(String(decoding: bytes, as: UTF8.self))
        }
        assertSame("ffffffffffffffffffffffff")
        assertSame("000000000000000000000000")
        assertSame("é0000000000000000000000")
    }
}
