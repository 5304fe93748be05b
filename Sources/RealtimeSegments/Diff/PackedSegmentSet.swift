#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A category's segments as a set, packed for a cheap comparison.
///
/// Segment ids are in practice 24-character lower-case hex ObjectIds (96 bits), which ``Segment``
/// already holds as numbers. When every id and segmentation id of a list is one, the set is stored as
/// sorted, de-duplicated 24-byte keys and two sets compare with one `memcmp`. Otherwise (any other
/// id) it falls back to sorted, de-duplicated segments. Packing is canonical (only lower-case hex is
/// packed, and a packed set can never equal a set holding an id that does not pack), so equality of
/// two values is equality of the sets.
///
/// The engine does not keep a set per category: ``SegmentSetComparer`` compares two lists in order
/// first and packs them (``pack(_:into:)``, ``equal(_:_:)``, into buffers it reuses) only when that
/// does not settle it.
@_spi(Benchmarks)
public struct PackedSegmentSet: Sendable, Equatable {
    /// One (id, segmentationId) pair as three words: id high 64 bits, both low 32-bit halves, and
    /// segmentation id high 64 bits.
    package struct Key: Sendable, Comparable {
        var word0: UInt64
        var word1: UInt64
        var word2: UInt64

        package static func < (lhs: Key, rhs: Key) -> Bool {
            (lhs.word0, lhs.word1, lhs.word2) < (rhs.word0, rhs.word1, rhs.word2)
        }
    }

    enum Storage: Sendable {
        case packed([Key])
        case strings([Segment])
    }

    let storage: Storage

    /// Builds the set of `segments` (order and duplicates ignored).
    @_spi(Benchmarks)
    public init(_ segments: [Segment]) {
        var keys: [Key] = []
        if Self.pack(segments, into: &keys) {
            storage = .packed(keys)
        } else {
            storage = .strings(Self.sortedUnique(segments))
        }
    }

    /// Replaces the contents of `keys` with the sorted, de-duplicated keys of `segments` and returns
    /// `true`, or returns `false` (leaving `keys` partly filled) at the first id that is not an
    /// ObjectId. Keeps the capacity of `keys`: a caller that passes the same array every time
    /// allocates only when a list is longer than any before it.
    package static func pack(_ segments: [Segment], into keys: inout [Key]) -> Bool {
        keys.removeAll(keepingCapacity: true)
        keys.reserveCapacity(segments.count)
        for segment in segments {
            let id = segment.storedId
            let segmentationId = segment.storedSegmentationId
            guard id.isObjectId, segmentationId.isObjectId else { return false }
            keys.append(Key(word0: id.high, word1: UInt64(id.low) << 32 | UInt64(segmentationId.low), word2: segmentationId.high))
        }
        keys.sort()
        removeDuplicates(sorted: &keys)
        return true
    }

    /// Whether two arrays of packed keys are equal: one `memcmp`.
    static func equal(_ left: [Key], _ right: [Key]) -> Bool {
        guard left.count == right.count else { return false }
        return left.withUnsafeBytes { l in
            right.withUnsafeBytes { r in
                l.count == 0 || memcmp(l.baseAddress!, r.baseAddress!, l.count) == 0
            }
        }
    }

    /// Number of distinct segments.
    var count: Int {
        switch storage {
        case .packed(let keys): keys.count
        case .strings(let segments): segments.count
        }
    }

    /// `true` if every id packed into fixed-width keys.
    @_spi(Benchmarks)
    public var isPacked: Bool {
        if case .packed = storage { return true }
        return false
    }

    @_spi(Benchmarks)
    public static func == (lhs: PackedSegmentSet, rhs: PackedSegmentSet) -> Bool {
        switch (lhs.storage, rhs.storage) {
        case (.packed(let left), .packed(let right)):
            return equal(left, right)
        case (.strings(let left), .strings(let right)):
            return left == right
        default:
            return false
        }
    }

    /// Removes repeated keys from a sorted array in place (no second array).
    private static func removeDuplicates(sorted keys: inout [Key]) {
        guard keys.count > 1 else { return }
        var write = 1
        for read in 1..<keys.count where keys[read] != keys[write - 1] {
            keys[write] = keys[read]
            write += 1
        }
        keys.removeLast(keys.count - write)
    }

    private static func sortedUnique(_ segments: [Segment]) -> [Segment] {
        // Any total order consistent with equality makes equal sets equal arrays; this one compares
        // the stored forms, so ObjectIds among the other ids are not spelled out to be sorted.
        let sorted = segments.sorted { ($0.storedId, $0.storedSegmentationId) < ($1.storedId, $1.storedSegmentationId) }
        var result: [Segment] = []
        result.reserveCapacity(sorted.count)
        for segment in sorted where result.last != segment { result.append(segment) }
        return result
    }
}
