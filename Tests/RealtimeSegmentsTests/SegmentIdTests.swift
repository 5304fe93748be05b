import Foundation
import XCTest

@_spi(Benchmarks) @testable import RealtimeSegments

/// How a `Segment` holds its ids: ObjectIds as 96 bits, anything else as given, always canonical so
/// that equality and hashing stay those of the strings (SPEC §1, §4).
final class SegmentIdTests: XCTestCase {
    private let objectIds = ["66140257f4cb337324209871", "000000000000000000000000", "ffffffffffffffffffffffff",
                             "0123456789abcdef01234567", "fedcba9876543210abcdef00"]
    private let otherIds = ["", "a", "vip", "66140257F4CB337324209871", "66140257f4cb33732420987",
                            "66140257f4cb3373242098711", "66140257f4cb33732420987g", "6614025 f4cb337324209871",
                            "66140257f4cb33732420987\u{e9}", "campaign-segment-100001"]

    func testObjectIdsAreStoredAsNumbersAndSpelledBackExactly() {
        for id in objectIds {
            let stored = SegmentId(id)
            XCTAssertTrue(stored.isObjectId, id)
            XCTAssertEqual(stored.string, id)
        }
    }

    /// Every digit value in every position: the spelling is the `%016llx%08x` of the two numbers,
    /// and parses back to them.
    func testSpellingMatchesFormattedHexAndParsesBack() {
        var generator = SystemRandomNumberGenerator()
        var values: [(UInt64, UInt32)] = [(0, 0), (.max, .max), (0x0123_4567_89AB_CDEF, 0xFEDC_BA98), (0xA0A0_A0A0_A0A0_A0A0, 0x0909_0909)]
        for _ in 0..<10_000 { values.append((generator.next(), UInt32(truncatingIfNeeded: generator.next()))) }
        for (high, low) in values {
            let spelled = SegmentId(high: high, low: low).string
            XCTAssertEqual(spelled, String(format: "%016llx%08x", high, low))
            let parsed = SegmentId.parseObjectId(spelled)
            XCTAssertEqual(parsed?.high, high)
            XCTAssertEqual(parsed?.low, low)
        }
    }

    func testOtherIdsAreKeptAsTheStringsTheyAre() {
        for id in otherIds {
            XCTAssertFalse(SegmentId(id).isObjectId, id)
            XCTAssertEqual(SegmentId(id).text, id)
            XCTAssertEqual(SegmentId(id).string, id)
        }
    }

    func testSegmentReadsBackWhatItWasGiven() {
        for id in objectIds + otherIds {
            let segment = Segment(id: id, segmentationId: id + id)
            XCTAssertEqual(segment.id, id)
            XCTAssertEqual(segment.segmentationId, id + id)
        }
    }

    func testSettingAnIdKeepsTheFormCanonical() {
        var segment = Segment(id: "vip", segmentationId: "tier")
        segment.id = "66140257f4cb337324209871"
        segment.segmentationId = "66140215fb50effc8a7218b4"
        XCTAssertEqual(segment, Segment(id: "66140257f4cb337324209871", segmentationId: "66140215fb50effc8a7218b4"))
        segment.id = "vip"
        XCTAssertEqual(segment, Segment(id: "vip", segmentationId: "66140215fb50effc8a7218b4"))
    }

    /// Equality and hashing of segments must be those of their (id, segmentationId) strings, whatever
    /// the stored forms.
    func testEqualityAndHashingAgreeWithTheStrings() {
        let ids = objectIds + otherIds
        var generator = SplitMix64(seed: 0x5E6)
        for _ in 0..<2_000 {
            let a = (ids.randomElement(using: &generator)!, ids.randomElement(using: &generator)!)
            let b = (ids.randomElement(using: &generator)!, ids.randomElement(using: &generator)!)
            let left = Segment(id: a.0, segmentationId: a.1)
            let right = Segment(id: b.0, segmentationId: b.1)
            XCTAssertEqual(left == right, a == b, "\(a) \(b)")
            if a == b { XCTAssertEqual(left.hashValue, right.hashValue) }
        }
        XCTAssertEqual(Set(ids.map { Segment(id: $0, segmentationId: "g") }).count, Set(ids).count)
    }

    func testTheSortOrderIsTotalAndConsistentWithEquality() {
        let ids = (objectIds + otherIds).map(SegmentId.init)
        for a in ids {
            XCTAssertFalse(a < a)
            for b in ids where a != b {
                XCTAssertNotEqual(a < b, b < a, "\(a) \(b)")
                for c in ids where a < b && b < c { XCTAssertTrue(a < c) }
            }
        }
    }

    func testBytesAndStringsGiveTheSameForm() {
        for id in objectIds + otherIds {
            let fromBytes = Array(id.utf8).withUnsafeBufferPointer { SegmentId(utf8: $0) }
            XCTAssertEqual(fromBytes, SegmentId(id), id)
        }
    }

    func testCodableRoundTripKeepsTheWireStrings() throws {
        for id in objectIds + otherIds {
            let segment = Segment(id: id, segmentationId: "66140215fb50effc8a7218b4")
            let data = try JSONEncoder().encode(segment)
            let wire = try JSONSerialization.jsonObject(with: data) as? [String: String]
            XCTAssertEqual(wire, ["id": id, "segmentation_id": "66140215fb50effc8a7218b4"])
            XCTAssertEqual(try JSONDecoder().decode(Segment.self, from: data), segment)
        }
    }

    /// An id spelled with escapes is the same id as its plain spelling, stored the same way.
    func testAnEscapedObjectIdIsTheSameSegmentAsItsPlainSpelling() throws {
        let body = #"{"d":[{"id":"\u0036614025\u0037f4cb337324209871","segmentation_id":"66140215fb50effc8a7218b4"}]}"#
        let segment = try XCTUnwrap(try SegmentsResponseDecoder.decode(Array(body.utf8))[.other("d")].first)
        XCTAssertEqual(segment, Segment(id: "66140257f4cb337324209871", segmentationId: "66140215fb50effc8a7218b4"))
        XCTAssertTrue(segment.storedId.isObjectId)
    }

    func testTheParserStoresObjectIdsAsNumbers() throws {
        let body = #"{"d":[{"id":"66140257f4cb337324209871","segmentation_id":"tier"}]}"#
        let segment = try XCTUnwrap(try SegmentsResponseDecoder.decode(Array(body.utf8))[.other("d")].first)
        XCTAssertTrue(segment.storedId.isObjectId)
        XCTAssertEqual(segment.storedSegmentationId.text, "tier")
        XCTAssertFalse(segment.storedSegmentationId.isObjectId)
    }
}

/// Segments handed to app code carry their spelled-out ids; the spelling is a cache only.
final class SpelledOutSegmentTests: XCTestCase {
    private let objectId = "66140257f4cb337324209871"

    func testASpelledOutIdEqualsAndHashesLikeTheCompactOne() {
        let compact = Segment(id: objectId, segmentationId: "66140215fb50effc8a7218b4")
        let spelled = compact.spelledOut()
        XCTAssertEqual(spelled, compact)
        XCTAssertEqual(spelled.hashValue, compact.hashValue)
        XCTAssertEqual(spelled.id, objectId)
        XCTAssertFalse(spelled.storedId < compact.storedId)
        XCTAssertFalse(compact.storedId < spelled.storedId)
        XCTAssertEqual(PackedSegmentSet([spelled]), PackedSegmentSet([compact]))
        XCTAssertNotEqual(Segment(id: "66140257f4cb337324209872", segmentationId: "g").spelledOut(), Segment(id: objectId, segmentationId: "g"))
    }

    func testSpellingOutKeepsOtherIdsAsTheyAre() {
        let segment = Segment(id: "vip", segmentationId: objectId).spelledOut()
        XCTAssertEqual(segment.id, "vip")
        XCTAssertEqual(segment.segmentationId, objectId)
        XCTAssertEqual(segment.storedSegmentationId.text, objectId)
    }

    /// Callbacks receive segments whose ids are already strings: reading them allocates nothing,
    /// however many callbacks read them.
    func testDeliveredSegmentsCarryTheirSpelledIds() {
        let fixture = Fixture()
        fixture.transport.defaultResponse = response([.discovery: [1, 2]])
        _ = fixture.register(.discovery, tag: "d")
        fixture.startAndRunInitialCheck()
        let delivered = fixture.recorder.segments(tag: "d").last ?? []
        XCTAssertEqual(delivered, [segment(1), segment(2)])
        XCTAssertEqual(delivered.map(\.storedId.text), [segment(1).id, segment(2).id])
        XCTAssertEqual(delivered.map(\.storedSegmentationId.text), [segment(1).segmentationId, segment(2).segmentationId])
    }

    func testSpellingOutReusesTheStringsOfTheSameIdsInAnEarlierList() {
        let earlier = [segment(1), segment(2, segmentation: 2), segment(3, segmentation: 2)].spelledOut()
        // One added in front: every earlier id is one place off.
        let next = [segment(9), segment(1), segment(2, segmentation: 2), segment(3, segmentation: 2)]
        let spelled = next.spelledOut(reusing: earlier)
        XCTAssertEqual(spelled, next)
        XCTAssertEqual(spelled.map(\.id), next.map(\.id))
        XCTAssertEqual(spelled.map(\.segmentationId), next.map(\.segmentationId))
        XCTAssertTrue(spelled.allSatisfy { !$0.storedId.needsSpelling && !$0.storedSegmentationId.needsSpelling })
        let earlierStrings = storages(of: earlier)
        for index in 1..<spelled.count {
            XCTAssertTrue(earlierStrings.contains(storage(spelled[index].id)), "id of segment \(index)")
            XCTAssertTrue(earlierStrings.contains(storage(spelled[index].segmentationId)), "segmentation id of segment \(index)")
        }
        XCTAssertFalse(earlierStrings.contains(storage(spelled[0].id)), "a new id is spelled anew")
        // The new segment's segmentation id is the one the earlier list starts with.
        XCTAssertTrue(earlierStrings.contains(storage(spelled[0].segmentationId)))
    }

    func testSpellingOutNeverTakesAnotherIdsString() {
        let earlier = [segment(1), segment(2)].spelledOut()
        let next = [segment(3), segment(4)]
        let spelled = next.spelledOut(reusing: earlier)
        XCTAssertEqual(spelled.map(\.id), [segment(3).id, segment(4).id])
        XCTAssertEqual(spelled.map(\.storedId.text), [segment(3).id, segment(4).id])
        XCTAssertTrue(storages(of: earlier).isSuperset(of: spelled.map { storage($0.segmentationId) }), "the same segmentation is shared")
    }

    func testSpellingOutSharesARepeatedSegmentationIdWithinTheList() {
        let spelled = [segment(1), segment(2), segment(3, segmentation: 2)].spelledOut(reusing: [])
        XCTAssertEqual(spelled, [segment(1), segment(2), segment(3, segmentation: 2)])
        XCTAssertEqual(storage(spelled[0].segmentationId), storage(spelled[1].segmentationId))
        XCTAssertNotEqual(storage(spelled[1].segmentationId), storage(spelled[2].segmentationId))
        XCTAssertEqual(spelled[2].storedSegmentationId.text, segment(3, segmentation: 2).segmentationId)
    }

    func testSpellingOutWithAnEarlierListKeepsOtherIdsAsTheyAre() {
        let earlier = [Segment(id: "vip", segmentationId: objectId)].spelledOut()
        let spelled = [Segment(id: "vip", segmentationId: objectId), Segment(id: "new", segmentationId: "tier")].spelledOut(reusing: earlier)
        XCTAssertEqual(spelled.map(\.id), ["vip", "new"])
        XCTAssertEqual(spelled.map(\.segmentationId), [objectId, "tier"])
        XCTAssertEqual(spelled[0].storedSegmentationId.text, objectId)
    }

    /// A category's next delivery shares the strings of the ids its last delivery held, so an app
    /// keeping both lists holds each id once.
    func testADeliverySharesTheStringsOfTheCategorysLastDelivery() {
        let fixture = Fixture()
        fixture.transport.defaultResponse = response([.discovery: [1, 2]])
        _ = fixture.register(.discovery, tag: "d")
        fixture.startAndRunInitialCheck()
        fixture.transport.defaultResponse = response([.discovery: [1, 2, 3]])
        _ = fixture.register(.content, tag: "c")
        fixture.advance(.seconds(5))
        let lists = fixture.recorder.segments(tag: "d")
        XCTAssertEqual(lists, [[segment(1), segment(2)], [segment(1), segment(2), segment(3)]])
        guard lists.count == 2 else { return }
        let first = storages(of: lists[0])
        XCTAssertTrue(first.contains(storage(lists[1][0].id)))
        XCTAssertTrue(first.contains(storage(lists[1][1].id)))
        XCTAssertTrue(first.isSuperset(of: lists[1].map { storage($0.segmentationId) }))
        XCTAssertFalse(first.contains(storage(lists[1][2].id)))
        XCTAssertEqual(lists[1][2].storedId.text, segment(3).id)
    }

    func testPulledSegmentsCarryTheirSpelledIds() async throws {
        let fixture = Fixture()
        fixture.transport.defaultResponse = response([.content: [3]])
        fixture.client.start()
        let pulled = try await fixture.client.getSegments(category: .content)
        XCTAssertEqual(pulled, [segment(3)])
        XCTAssertEqual(pulled.map(\.storedId.text), [segment(3).id])
    }

    /// A `getSegments` answered from the cache, on the caller's thread, hands out spelled ids too.
    func testSegmentsPulledFromTheCacheCarryTheirSpelledIds() async throws {
        let fixture = Fixture()
        fixture.transport.defaultResponse = response([.content: [3, 4]])
        fixture.client.start()
        _ = try await fixture.client.getSegments(category: .content)
        let cached = try await fixture.client.getSegments(category: .content)
        XCTAssertEqual(fixture.client.statistics.pullCacheHits, 1)
        XCTAssertEqual(cached, [segment(3), segment(4)])
        XCTAssertEqual(cached.map(\.storedId.text), [segment(3).id, segment(4).id])
        XCTAssertEqual(cached.map(\.storedSegmentationId.text), [segment(3).segmentationId, segment(4).segmentationId])
        let completed = expectation(description: "completion form")
        fixture.client.getSegments(category: .content) { (result: Result<[Segment], SegmentsError>) in
            XCTAssertEqual((try? result.get())?.map(\.storedId.text), [segment(3).id, segment(4).id])
            completed.fulfill()
        }
        await fulfillment(of: [completed], timeout: 10)
    }
}
