@testable import SegmentsBenchKit
import XCTest

final class OrderedEnqueueFloorTests: XCTestCase {
    /// The floor times batches back to back for a whole run: each batch's drain must free every
    /// slot it used, or a later batch that wraps around the ring finds its slot taken and traps.
    func testBatchesWrapAroundTheRingBecauseEachDrainFreesEverySlotItsBatchTook() {
        let floor = OrderedEnqueueFloor()
        let batch = OrderedEnqueueFloor.capacity / 2 + 3
        for _ in 0..<7 {  // 7 × (capacity / 2 + 3) events: past the end of the ring three times
            XCTAssertGreaterThan(floor.batch(iterations: batch), 0)
        }
    }
}
