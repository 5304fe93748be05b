/// Tells whether two lists of a category's segments hold the same set of (id, segmentationId)
/// pairs, order and duplicates ignored, without allocating in steady state.
///
/// The segments API lists a customer's segments in the same order from one fetch to the next, and
/// most checks change nothing. So the two lists are first compared in order: for an unchanged
/// category that settles it in one pass over the two arrays, with nothing packed, sorted or
/// allocated. Lists that differ in order, length or content are then compared as sets: packed into
/// sorted, de-duplicated keys (``PackedSegmentSet``) in two buffers the comparer keeps for the next
/// time, and compared with one `memcmp`. Only a list holding an id that is not an ObjectId takes
/// ``PackedSegmentSet``'s string fallback, which allocates.
///
/// Threading: a value, used by one thread at a time (the engine thread keeps one).
@_spi(Benchmarks)
public struct SegmentSetComparer: Sendable {
    private var leftKeys: [PackedSegmentSet.Key] = []
    private var rightKeys: [PackedSegmentSet.Key] = []

    /// Creates a comparer with empty buffers; they grow to the longest list compared as sets.
    @_spi(Benchmarks)
    public init() {}

    /// Whether `left` and `right` hold the same set of segments.
    package mutating func holdTheSameSet(_ left: [Segment], _ right: [Segment]) -> Bool {
        if left.count == right.count, Self.equalInOrder(left, right) { return true }
        let leftPacked = PackedSegmentSet.pack(left, into: &leftKeys)
        let rightPacked = PackedSegmentSet.pack(right, into: &rightKeys)
        switch (leftPacked, rightPacked) {
        case (true, true):
            return PackedSegmentSet.equal(leftKeys, rightKeys)
        case (false, false):
            return PackedSegmentSet(left) == PackedSegmentSet(right)
        default:
            // A packed set never equals one holding an id that does not pack (see PackedSegmentSet).
            return false
        }
    }

    /// Element by element; equal lists of equal length are equal sets.
    ///
    /// Reads the ids in place instead of comparing copies of the elements with `==`, which
    /// `hot-path`'s in-order diff measured slower.
    private static func equalInOrder(_ left: [Segment], _ right: [Segment]) -> Bool {
        left.withUnsafeBufferPointer { left in
            right.withUnsafeBufferPointer { right in
                guard let leftBase = left.baseAddress, let rightBase = right.baseAddress else { return true }
                // Same buffer (a list compared with itself, or a response kept by two owners).
                if leftBase == rightBase { return true }
                for index in 0..<left.count {
                    let l = leftBase + index
                    let r = rightBase + index
                    guard SegmentId.equal(in: l, \.storedId, r), SegmentId.equal(in: l, \.storedSegmentationId, r) else {
                        return false
                    }
                }
                return true
            }
        }
    }
}
