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
        if let leftSignature = Self.signature(left), let rightSignature = Self.signature(right), leftSignature != rightSignature {
            return false
        }
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

    /// A digest of the set `segments` holds, or `nil` if an id is not an ObjectId: for each segment,
    /// two of 64 bits chosen by its ids, OR-ed together, so neither order nor duplicates change it.
    ///
    /// Equal sets have equal signatures, so lists whose signatures differ hold different sets:
    /// that settles most changed lists in one pass, without packing and sorting both. Equal
    /// signatures settle nothing (different sets can share one); the lists are then compared as
    /// sets.
    static func signature(_ segments: [Segment]) -> UInt64? {
        segments.withUnsafeBufferPointer { segments in
            var bits: UInt64 = 0
            for index in segments.indices {
                let id = segments[index].storedId
                let segmentationId = segments[index].storedSegmentationId
                guard id.isObjectId, segmentationId.isObjectId else { return nil }
                let mixed = (id.high ^ (UInt64(id.low) << 32 | UInt64(segmentationId.low)) ^ (segmentationId.high &* 0x9E37_79B9_7F4A_7C15))
                    &* 0x9E37_79B9_7F4A_7C15
                bits |= 1 << (mixed >> 58) | 1 << ((mixed >> 52) & 63)
            }
            return bits
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
