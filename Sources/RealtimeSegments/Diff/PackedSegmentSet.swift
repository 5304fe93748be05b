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
        Self.removeDuplicates(sorted: &keys)
        storage = .packed(keys)
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
        guard bytes.count == 24, let base = bytes.baseAddress else { return nil }
        let raw = UnsafeRawPointer(base)
        guard let first = hexWord(raw.loadUnaligned(as: UInt64.self)),
              let second = hexWord(raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)),
              let third = hexWord(raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self))
        else { return nil }
        return (UInt64(first) << 32 | UInt64(second), third)
    }

    /// The value of 8 lower-case hex characters (the first character in the lowest byte, as
    /// loaded from memory on a little-endian machine), or `nil` if any byte is not `0-9a-f`.
    ///
    /// Eight bytes at once: the diff parses two ids per segment on every fetch, and a per-byte
    /// loop was about half of building a category's set.
    @inline(__always)
    static func hexWord(_ littleEndianWord: UInt64) -> UInt32? {
        let word = UInt64(littleEndian: littleEndianWord)
        let high: UInt64 = 0x8080_8080_8080_8080
        let ones: UInt64 = 0x0101_0101_0101_0101
        guard word & high == 0 else { return nil }
        // Per byte (all below 0x80 now): the top bit of `(byte | 0x80) - n` is set iff byte >= n,
        // and no lane borrows from its neighbour.
        @inline(__always) func atLeast(_ n: UInt64) -> UInt64 { ((word | high) &- n &* ones) & high }
        let digit = atLeast(0x30) & ~atLeast(0x3A)
        let letter = atLeast(0x61) & ~atLeast(0x67)
        guard digit | letter == high else { return nil }
        // '0'...'9' -> low nibble; 'a'...'f' -> low nibble (1...6) + 9 (bit 6 is set only for letters).
        let nibbles = (word & 0x0F0F_0F0F_0F0F_0F0F) &+ ((word >> 6) & ones) &* 9
        // Gather the eight nibbles, first character most significant.
        let pairs = ((nibbles << 4) | (nibbles >> 8)) & 0x00FF_00FF_00FF_00FF
        let quads = ((pairs << 8) | (pairs >> 16)) & 0x0000_FFFF_0000_FFFF
        return UInt32(truncatingIfNeeded: (quads << 16) | (quads >> 32))
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
        let sorted = segments.sorted { ($0.id, $0.segmentationId) < ($1.id, $1.segmentationId) }
        var result: [Segment] = []
        result.reserveCapacity(sorted.count)
        for segment in sorted where result.last != segment { result.append(segment) }
        return result
    }
}
