#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A category's segments as a set, in a form that compares in a few nanoseconds.
///
/// Segment ids are in practice 24-character lower-case hex ObjectIds (96 bits). When every id and
/// segmentation id of a list is one, the set is stored as sorted, de-duplicated 24-byte keys and two
/// sets compare with one `memcmp`. Otherwise (any other id) it falls back to sorted, de-duplicated
/// strings. Packing is canonical (only lower-case hex is packed, and a packed set can never equal a
/// set holding an id that does not pack), so equality of two values is equality of the sets.
@_spi(Benchmarks)
public struct PackedSegmentSet: Sendable, Equatable {
    /// One (id, segmentationId) pair as three words: id high 64 bits, both low 32-bit halves, and
    /// segmentation id high 64 bits.
    struct Key: Sendable, Comparable {
        var word0: UInt64
        var word1: UInt64
        var word2: UInt64

        static func < (lhs: Key, rhs: Key) -> Bool {
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
        keys.reserveCapacity(segments.count)
        for segment in segments {
            guard let id = Self.parseObjectId(segment.id),
                let segmentationId = Self.parseObjectId(segment.segmentationId)
            else {
                storage = .strings(Self.sortedUnique(segments))
                return
            }
            keys.append(Key(word0: id.high, word1: UInt64(id.low) << 32 | UInt64(segmentationId.low), word2: segmentationId.high))
        }
        keys.sort()
        storage = .packed(Self.unique(sorted: keys))
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
            guard left.count == right.count else { return false }
            return left.withUnsafeBytes { l in
                right.withUnsafeBytes { r in
                    l.count == 0 || memcmp(l.baseAddress!, r.baseAddress!, l.count) == 0
                }
            }
        case (.strings(let left), .strings(let right)):
            return left == right
        default:
            return false
        }
    }

    /// Parses a 24-character lower-case hex string into 96 bits, or `nil`.
    static func parseObjectId(_ string: String) -> (high: UInt64, low: UInt32)? {
        var utf8 = string.utf8
        if let result = utf8.withContiguousStorageIfAvailable({ parseObjectId(bytes: $0) }) {
            return result
        }
        // Bridged or non-contiguous strings: make them native once.
        var copy = string
        copy.makeContiguousUTF8()
        utf8 = copy.utf8
        return utf8.withContiguousStorageIfAvailable { parseObjectId(bytes: $0) } ?? nil
    }

    private static func parseObjectId(bytes: UnsafeBufferPointer<UInt8>) -> (high: UInt64, low: UInt32)? {
        guard bytes.count == 24 else { return nil }
        var high: UInt64 = 0
        var low: UInt64 = 0
        for index in 0..<24 {
            let byte = bytes[index]
            let nibble: UInt64
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = UInt64(byte &- UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = UInt64(byte &- UInt8(ascii: "a") &+ 10)
            default: return nil
            }
            if index < 16 { high = high << 4 | nibble } else { low = low << 4 | nibble }
        }
        return (high, UInt32(low))
    }

    private static func unique(sorted keys: [Key]) -> [Key] {
        guard keys.count > 1 else { return keys }
        var result = keys
        var write = 1
        for read in 1..<result.count where result[read] != result[write - 1] {
            result[write] = result[read]
            write += 1
        }
        result.removeLast(result.count - write)
        return result
    }

    private static func sortedUnique(_ segments: [Segment]) -> [Segment] {
        let sorted = segments.sorted { ($0.id, $0.segmentationId) < ($1.id, $1.segmentationId) }
        var result: [Segment] = []
        result.reserveCapacity(sorted.count)
        for segment in sorted where result.last != segment { result.append(segment) }
        return result
    }
}
