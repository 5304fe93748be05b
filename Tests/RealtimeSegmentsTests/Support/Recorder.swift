import Foundation
@testable import RealtimeSegments
import Synchronization

/// Records the invocations of callbacks made with ``callback(_:firstLoad:)``.
final class Recorder: Sendable {
    struct Call: Sendable {
        var tag: String
        var segments: [Segment]
    }

    private let calls = Locked<[Call]>([])

    /// A callback that records its calls under `tag`.
    func callback(_ category: SegmentCategory, firstLoad: Bool = false, tag: String = "") -> SegmentCallbackData {
        SegmentCallbackData(category: category, isIncludeFirstLoad: firstLoad) { [self] segments in
            record(tag: tag, segments)
        }
    }

    func record(tag: String, _ segments: [Segment]) {
        let call = Call(tag: tag, segments: segments)
        calls.withLock { $0.append(call) }
    }

    var all: [Call] { calls.withLock { $0 } }
    var count: Int { all.count }
    func count(tag: String) -> Int { all.filter { $0.tag == tag }.count }
    func segments(tag: String) -> [[Segment]] { all.filter { $0.tag == tag }.map(\.segments) }
    var tags: [String] { all.map(\.tag) }
    func clear() { calls.withLock { $0.removeAll() } }
}

/// A segment with 24-hex ids derived from `n` (and `segmentation`).
func segment(_ n: Int, segmentation: Int = 1) -> Segment {
    Segment(id: String(format: "%024x", n), segmentationId: String(format: "%024x", 0xABC000 + segmentation))
}

/// A response from category → segment numbers.
func response(_ categories: [SegmentCategory: [Int]]) -> SegmentsResponse {
    SegmentsResponse(categories: categories.mapValues { $0.map { segment($0) } })
}
