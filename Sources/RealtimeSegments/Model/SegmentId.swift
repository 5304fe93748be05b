/// How a ``Segment`` holds one of its two ids.
///
/// Real ids are 24-character lower-case hex ObjectIds. As a `String` such an id needs a heap
/// allocation (only up to 15 UTF-8 bytes are stored inline), and a fetched body carries two per
/// segment: they were 60 of the 68 allocations of decoding and diffing a typical response. So an
/// ObjectId is kept as its 96 bits and spelled out only when someone reads it; anything else is kept
/// as the string it is.
///
/// The form is canonical: a string is stored as an ObjectId exactly when it is 24 lower-case hex
/// characters, and spelling an ObjectId gives that string back. Two values are therefore equal
/// exactly when their strings are, which is what lets ``Segment`` keep synthesized `Hashable`.
///
/// An ObjectId may also carry its spelled-out string (``spelledOut()``): the engine does that once
/// for the segments it hands to app code, so that a thousand callbacks reading `id` do not each
/// build it. The string is a cache and takes no part in equality, hashing or order.
///
/// A struct rather than an enum with a `String` payload: matching such an enum copies the payload
/// (a retain and a release) even to compare it, which made comparing sets of non-ObjectId segments
/// many times slower; a plain `String` field compares in place.
struct SegmentId: Hashable, Sendable, Comparable {
    /// An ObjectId's first 16 characters as a number; 0 for any other id.
    private(set) var high: UInt64
    /// An ObjectId's last 8 characters as a number; 0 for any other id.
    private(set) var low: UInt32
    /// Whether this is an ObjectId (else the id is `text`).
    private(set) var isObjectId: Bool
    /// Any other id, as given. For an ObjectId, empty (an empty string does not allocate) or, after
    /// ``spelledOut()``, its spelling.
    private(set) var text: String

    /// The ObjectId `high`, `low`.
    init(high: UInt64, low: UInt32) {
        self.high = high
        self.low = low
        isObjectId = true
        text = ""
    }

    /// The canonical form of `string`.
    init(_ string: String) {
        if let id = Self.parseObjectId(string) {
            self.init(high: id.high, low: id.low)
        } else {
            self.init(text: string)
        }
    }

    /// The canonical form of the UTF-8 `bytes` (which must be valid UTF-8). Does not allocate for an
    /// ObjectId: the parser hands over the id's bytes straight from the response body.
    init(utf8 bytes: UnsafeBufferPointer<UInt8>) {
        if let id = Self.parseObjectId(bytes: bytes) {
            self.init(high: id.high, low: id.low)
        } else {
            self.init(text: String(decoding: bytes, as: UTF8.self))
        }
    }

    private init(text: String) {
        high = 0
        low = 0
        isObjectId = false
        self.text = text
    }

    /// The id as a string. Builds it (one allocation) for an ObjectId not yet spelled out.
    var string: String {
        guard needsSpelling else { return text }
        return Self.spell(high: high, low: low)
    }

    /// The same id, carrying its string if it is an ObjectId, so that ``string`` is a copy of a
    /// reference instead of a new allocation.
    func spelledOut() -> SegmentId {
        guard needsSpelling else { return self }
        return Self.spelledOut(high: high, low: low)
    }

    /// The ObjectId `high`, `low`, carrying its spelling.
    static func spelledOut(high: UInt64, low: UInt32) -> SegmentId {
        var id = SegmentId(high: high, low: low)
        id.text = spell(high: high, low: low)
        return id
    }

    /// Whether this is an ObjectId that does not carry its spelling yet.
    var needsSpelling: Bool { isObjectId && text.isEmpty }

    private static func spell(high: UInt64, low: UInt32) -> String {
        var words = (
            hexCharacters(UInt32(truncatingIfNeeded: high >> 32)), hexCharacters(UInt32(truncatingIfNeeded: high)),
            hexCharacters(low))
        return withUnsafeBytes(of: &words) { String(decoding: $0, as: UTF8.self) }
    }

    /// The 8 lower-case hex characters of `value`, most significant digit first, as a word whose
    /// bytes in memory are those characters in order: the inverse of ``hexWord(_:)``.
    ///
    /// Eight digits at once, as ``hexWord(_:)`` reads them: the engine spells the ids of every
    /// delivered list before the first callback runs, and a per-digit loop was a third of that.
    @inline(__always)
    private static func hexCharacters(_ value: UInt32) -> UInt64 {
        // Spread the eight nibbles over eight bytes, the most significant nibble in the lowest byte.
        var nibbles = UInt64(value)
        nibbles = (nibbles >> 16) | ((nibbles & 0xFFFF) << 32)
        nibbles = ((nibbles >> 8) & 0x0000_00FF_0000_00FF) | ((nibbles & 0x0000_00FF_0000_00FF) << 16)
        nibbles = ((nibbles >> 4) & 0x000F_000F_000F_000F) | ((nibbles & 0x000F_000F_000F_000F) << 8)
        let ones: UInt64 = 0x0101_0101_0101_0101
        // 1 in each byte whose nibble is 10 or more (adding 6 carries into bit 4 exactly then).
        let letters = ((nibbles &+ 6 &* ones) >> 4) & ones
        // '0' + nibble, and for 10...15 another 'a' - '0' - 10 = 39 on top.
        return (nibbles &+ 0x30 &* ones &+ letters &* 39).littleEndian
    }

    /// `==` of the ids at `path` in two segments, read where they are: for long lists, where
    /// copying each segment out to compare it costs more than the comparison. It must agree with
    /// `==`; `SegmentSetComparerTests` checks the in-order compare against `Set` equality.
    @inline(__always)
    static func equal(in lhs: UnsafePointer<Segment>, _ path: KeyPath<Segment, SegmentId>, _ rhs: UnsafePointer<Segment>) -> Bool {
        let left = lhs.pointer(to: path)!
        let right = rhs.pointer(to: path)!
        guard left.pointee.isObjectId == right.pointee.isObjectId else { return false }
        if left.pointee.isObjectId { return left.pointee.high == right.pointee.high && left.pointee.low == right.pointee.low }
        return left.pointee.text == right.pointee.text
    }

    static func == (lhs: SegmentId, rhs: SegmentId) -> Bool {
        guard lhs.isObjectId == rhs.isObjectId else { return false }
        return lhs.isObjectId ? lhs.high == rhs.high && lhs.low == rhs.low : lhs.text == rhs.text
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(isObjectId)
        if isObjectId {
            hasher.combine(high)
            hasher.combine(low)
        } else {
            hasher.combine(text)
        }
    }

    /// A total order consistent with equality (ObjectIds first, by value; then other ids, by
    /// string), for sorting sets of segments. It is not the order of the spelled-out strings.
    static func < (lhs: SegmentId, rhs: SegmentId) -> Bool {
        guard lhs.isObjectId == rhs.isObjectId else { return lhs.isObjectId }
        return lhs.isObjectId ? (lhs.high, lhs.low) < (rhs.high, rhs.low) : lhs.text < rhs.text
    }

    // MARK: Parsing

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

    /// Parses 24 lower-case hex bytes into 96 bits, or `nil`.
    static func parseObjectId(bytes: UnsafeBufferPointer<UInt8>) -> (high: UInt64, low: UInt32)? {
        guard bytes.count == 24, let base = bytes.baseAddress else { return nil }
        return parseObjectId(at: base)
    }

    /// Parses the 24 bytes at `base` (which must be readable) as lower-case hex into 96 bits, or `nil`.
    /// Inlined into the response parser's loop over compactly written segments.
    @inline(__always)
    static func parseObjectId(at base: UnsafePointer<UInt8>) -> (high: UInt64, low: UInt32)? {
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
    /// Eight bytes at once: every fetched segment has two ids to parse, and a per-byte loop was about
    /// half of building a category's set.
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
}
