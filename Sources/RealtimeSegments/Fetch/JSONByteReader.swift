/// Why a segments body could not be parsed, before it becomes a ``SegmentsError``.
///
/// `syntax` means the bytes are not one RFC 8259 JSON document (or are nested deeper than
/// ``JSONByteReader/maximumDepth``); `shape` means valid JSON of the wrong shape, with the reason the
/// caller reports.
enum JSONParseError: Error, Equatable {
    case syntax
    case shape(String)
}

/// A forward-only cursor over the UTF-8 bytes of one JSON document (RFC 8259).
///
/// It knows JSON's lexical grammar (whitespace, strings with their escapes, numbers, literals) and
/// can skip any value, but nothing about the segments shape: ``SegmentsResponseParser`` drives it.
/// It never allocates except to build a `String` the caller asks for, and it never recurses, so a
/// hostile body cannot exhaust the stack: containers deeper than ``maximumDepth`` are a syntax error.
///
/// The bytes must stay valid while the reader is used (it is built inside a
/// `withContiguousStorageIfAvailable` / `withUnsafeBufferPointer` closure and does not escape it).
struct JSONByteReader {
    /// Deepest container nesting accepted, the root container being depth 1. The same limit as
    /// Foundation's `JSONDecoder`, so a body it accepted is not rejected for its depth.
    static let maximumDepth = 512

    let bytes: UnsafeBufferPointer<UInt8>
    /// The next byte to read.
    var index: Int
    /// Containers currently open.
    var depth = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        index = 0
    }

    var isAtEnd: Bool { index >= bytes.count }

    // MARK: Whitespace and punctuation

    /// Skips a UTF-8 byte order mark at the start. RFC 8259 §8.1 lets a parser ignore one, and
    /// `JSONDecoder` does.
    mutating func skipByteOrderMark() {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
    }

    /// Skips the four whitespace bytes JSON allows (space, tab, line feed, carriage return).
    @inline(__always)
    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    /// The next byte after whitespace, without consuming it; `nil` at the end.
    @inline(__always)
    mutating func peek() -> UInt8? {
        skipWhitespace()
        return index < bytes.count ? bytes[index] : nil
    }

    /// Consumes `byte` after whitespace, or throws.
    @inline(__always)
    mutating func consume(_ byte: UInt8) throws(JSONParseError) {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == byte else { throw .syntax }
        index += 1
    }

    /// Counts one more open container (after its `{` or `[`), enforcing ``maximumDepth``.
    @inline(__always)
    mutating func enterContainer() throws(JSONParseError) {
        depth += 1
        if depth > Self.maximumDepth { throw .syntax }
    }

    @inline(__always)
    mutating func leaveContainer() { depth -= 1 }

    // MARK: Strings

    /// The raw bytes between the quotes of a string the reader has scanned (and validated).
    struct StringToken {
        /// Index of the first byte after the opening quote.
        var start: Int
        /// Index of the closing quote.
        var end: Int
        /// `true` if the raw bytes contain a backslash escape, so they are not the string's UTF-8.
        var hasEscapes: Bool
    }

    /// Scans the string starting at `index` (which must be a `"`), validating it fully: escapes,
    /// surrogate pairs, UTF-8, no raw control characters. Leaves `index` after the closing quote.
    mutating func scanString() throws(JSONParseError) -> StringToken {
        index += 1
        let start = index
        var hasEscapes = false
        let count = bytes.count
        while true {
            // Find the next byte that is not plain ASCII, 8 bytes at a time while 8 remain (an id is
            // 24 plain bytes and its closing quote).
            if index + 8 <= count {
                let word = UnsafeRawPointer(bytes.baseAddress! + index).loadUnaligned(as: UInt64.self)
                let special = Self.specialBytes(in: UInt64(littleEndian: word))
                if special == 0 {
                    index += 8
                    continue
                }
                index += special.trailingZeroBitCount >> 3
            } else {
                guard index < count else { throw .syntax }
                let byte = bytes[index]
                if byte >= 0x20, byte < 0x80, byte != 0x22, byte != 0x5C {
                    index += 1
                    continue
                }
            }
            switch bytes[index] {
            case 0x22:
                let token = StringToken(start: start, end: index, hasEscapes: hasEscapes)
                index += 1
                return token
            case 0x5C:
                hasEscapes = true
                try skipEscape()
            case ..<0x20:
                // RFC 8259 §7: control characters must be escaped inside strings.
                throw .syntax
            default:
                try skipMultiByteScalar()
            }
        }
    }

    /// The high bit of each byte of `word` (bytes in memory order from the least significant) that
    /// ends a plain run of a string: a quote, a backslash, a control character or a non-ASCII byte.
    /// Exact up to the first such byte (SWAR: `x &- 0x01` borrows into a byte's high bit exactly when
    /// the byte is zero, and a borrow only starts at a flagged byte), which is all the caller uses.
    @inline(__always)
    private static func specialBytes(in word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let quotes = word ^ (ones &* 0x22)
        let backslashes = word ^ (ones &* 0x5C)
        return ((word &- ones &* 0x20) | (quotes &- ones) | (backslashes &- ones) | word) & (ones &* 0x80)
    }

    /// Whether `token` is exactly the ASCII `literal` (compared on raw bytes: a key spelled with
    /// escapes goes through ``makeString(_:)`` instead).
    @inline(__always)
    func rawBytes(of token: StringToken, equal literal: StaticString) -> Bool {
        token.end - token.start == literal.utf8CodeUnitCount && bytes(at: token.start, equal: literal)
    }

    /// Whether the bytes from `offset` on start with the ASCII `literal`.
    @inline(__always)
    func bytes(at offset: Int, equal literal: StaticString) -> Bool {
        let length = literal.utf8CodeUnitCount
        guard offset >= 0, bytes.count - offset >= length else { return false }
        guard length > 0 else { return true }
        // In whole words, the last one overlapping the one before: a segment's fields are compared
        // for every segment, and a byte loop over the literal's tail cost as much as its words.
        let text = UnsafeRawPointer(bytes.baseAddress! + offset)
        let pattern = UnsafeRawPointer(literal.utf8Start)
        @inline(__always) func equal<Word: FixedWidthInteger>(_: Word.Type, at position: Int) -> Bool {
            text.loadUnaligned(fromByteOffset: position, as: Word.self) == pattern.loadUnaligned(fromByteOffset: position, as: Word.self)
        }
        @inline(__always) func equalInWords<Word: FixedWidthInteger>(_ word: Word.Type) -> Bool {
            let size = MemoryLayout<Word>.size
            var position = 0
            while position + size < length {
                guard equal(word, at: position) else { return false }
                position += size
            }
            return equal(word, at: length - size)
        }
        switch length {
        case 8...: return equalInWords(UInt64.self)
        case 4...: return equalInWords(UInt32.self)
        case 2...: return equalInWords(UInt16.self)
        default: return equal(UInt8.self, at: 0)
        }
    }

    /// The decoded value of a scanned string.
    func makeString(_ token: StringToken) -> String {
        let raw = UnsafeBufferPointer(rebasing: bytes[token.start..<token.end])
        // Already validated, so decoding cannot repair anything; strings of up to 15 bytes are
        // stored inline and do not allocate.
        guard token.hasEscapes else { return String(decoding: raw, as: UTF8.self) }
        // An escape never decodes to more bytes than it spells (`\uXXXX` is 6 bytes for at most 3,
        // a surrogate pair 12 for 4), so the raw length is enough capacity.
        return String(unsafeUninitializedCapacity: raw.count) { output in
            Self.unescape(raw, into: output)
        }
    }

    /// The decoded value of a scanned string, as a segment id: an unescaped ObjectId goes from the
    /// body's bytes to its 96 bits without becoming a `String`.
    func makeSegmentId(_ token: StringToken) -> SegmentId {
        guard token.hasEscapes else { return SegmentId(utf8: UnsafeBufferPointer(rebasing: bytes[token.start..<token.end])) }
        return SegmentId(makeString(token))
    }

    /// Writes the UTF-8 of the validated raw string `raw` into `output`; returns the byte count.
    private static func unescape(_ raw: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<UInt8>) -> Int {
        var read = 0
        var written = 0
        func put(_ byte: UInt8) {
            output[written] = byte
            written += 1
        }
        while read < raw.count {
            let byte = raw[read]
            guard byte == 0x5C else {
                put(byte)
                read += 1
                continue
            }
            let escaped = raw[read + 1]
            read += 2
            switch escaped {
            case UInt8(ascii: "b"): put(0x08)
            case UInt8(ascii: "f"): put(0x0C)
            case UInt8(ascii: "n"): put(0x0A)
            case UInt8(ascii: "r"): put(0x0D)
            case UInt8(ascii: "t"): put(0x09)
            case UInt8(ascii: "u"):
                var value = hexValue(raw, at: read)
                read += 4
                if value & 0xFC00 == 0xD800 {
                    // Validated: a low surrogate escape follows.
                    let low = hexValue(raw, at: read + 2)
                    read += 6
                    value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
                }
                for unit in UTF8.encode(Unicode.Scalar(value)!)! { put(unit) }
            default: put(escaped)  // `"`, `\` and `/` stand for themselves.
            }
        }
        return written
    }

    /// Skips the escape at `index` (a backslash), validating it; a `\u` high surrogate must be
    /// followed by a `\u` low surrogate and a low surrogate must not stand alone (`JSONDecoder`
    /// rejects lone surrogates too: they are not Unicode scalars).
    private mutating func skipEscape() throws(JSONParseError) {
        guard index + 1 < bytes.count else { throw .syntax }
        switch bytes[index + 1] {
        case 0x22, 0x5C, 0x2F, UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            index += 2
        case UInt8(ascii: "u"):
            let unit = try readHexEscape()
            switch unit {
            case 0xD800...0xDBFF:
                guard index + 1 < bytes.count, bytes[index] == 0x5C, bytes[index + 1] == UInt8(ascii: "u") else { throw .syntax }
                guard case 0xDC00...0xDFFF = try readHexEscape() else { throw .syntax }
            case 0xDC00...0xDFFF:
                throw .syntax
            default:
                break
            }
        default:
            throw .syntax
        }
    }

    /// Reads `\uXXXX` at `index`, returning the code unit.
    private mutating func readHexEscape() throws(JSONParseError) -> UInt32 {
        guard index + 6 <= bytes.count else { throw .syntax }
        var value: UInt32 = 0
        for offset in 2..<6 {
            guard let digit = Self.hexDigit(bytes[index + offset]) else { throw .syntax }
            value = value << 4 | digit
        }
        index += 6
        return value
    }

    @inline(__always)
    private static func hexDigit(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte &- UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte &- UInt8(ascii: "a") &+ 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte &- UInt8(ascii: "A") &+ 10)
        default: nil
        }
    }

    /// The four validated hex digits at `offset`.
    private static func hexValue(_ raw: UnsafeBufferPointer<UInt8>, at offset: Int) -> UInt32 {
        var value: UInt32 = 0
        for index in offset..<offset + 4 { value = value << 4 | hexDigit(raw[index])! }
        return value
    }

    /// Skips one multi-byte UTF-8 sequence at `index`, rejecting what is not well-formed UTF-8
    /// (Unicode Table 3-7: no overlong forms, no surrogates, nothing above U+10FFFF).
    private mutating func skipMultiByteScalar() throws(JSONParseError) {
        let lead = bytes[index]
        let length: Int
        var secondRange: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; secondRange = 0xA0...0xBF
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; secondRange = 0x80...0x9F
        case 0xF0: length = 4; secondRange = 0x90...0xBF
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; secondRange = 0x80...0x8F
        default: throw .syntax
        }
        guard index + length <= bytes.count, secondRange.contains(bytes[index + 1]) else { throw .syntax }
        for offset in 2..<length where bytes[index + offset] & 0xC0 != 0x80 { throw .syntax }
        index += length
    }

    // MARK: Skipping values

    /// Skips one complete value of any type, validating it (numbers per the JSON grammar, strings
    /// as ``scanString()``, nesting within ``maximumDepth``).
    ///
    /// Iterative, with the kinds of the open containers in a bit stack, rather than recursive: the
    /// depth limit then bounds memory, not the call stack.
    mutating func skipValue() throws(JSONParseError) {
        var open = ContainerStack()
        value: while true {
            guard let byte = peek() else { throw .syntax }
            switch byte {
            case UInt8(ascii: "{"):
                index += 1
                try enterContainer()
                if peek() == UInt8(ascii: "}") {
                    index += 1
                    leaveContainer()
                } else {
                    open.push(isObject: true)
                    try skipKeyAndColon()
                    continue value
                }
            case UInt8(ascii: "["):
                index += 1
                try enterContainer()
                if peek() == UInt8(ascii: "]") {
                    index += 1
                    leaveContainer()
                } else {
                    open.push(isObject: false)
                    continue value
                }
            case 0x22: _ = try scanString()
            case UInt8(ascii: "t"): try skipLiteral("true")
            case UInt8(ascii: "f"): try skipLiteral("false")
            case UInt8(ascii: "n"): try skipLiteral("null")
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try skipNumber()
            default: throw .syntax
            }
            // A value ended: close every container that ends here, or go on to the next element.
            while !open.isEmpty {
                guard let next = peek() else { throw .syntax }
                index += 1
                if next == UInt8(ascii: ",") {
                    if open.topIsObject { try skipKeyAndColon() }
                    continue value
                }
                guard next == (open.topIsObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else { throw .syntax }
                open.pop()
                leaveContainer()
            }
            return
        }
    }

    /// Skips `"key" :` inside an object being skipped.
    private mutating func skipKeyAndColon() throws(JSONParseError) {
        guard peek() == 0x22 else { throw .syntax }
        _ = try scanString()
        try consume(UInt8(ascii: ":"))
    }

    /// Consumes `literal` (`true`, `false` or `null`) at `index`.
    mutating func skipLiteral(_ literal: StaticString) throws(JSONParseError) {
        let length = literal.utf8CodeUnitCount
        guard index + length <= bytes.count else { throw .syntax }
        let pattern = literal.utf8Start
        for offset in 0..<length where bytes[index + offset] != pattern[offset] { throw .syntax }
        index += length
    }

    /// Consumes a number per RFC 8259 §6: `-? (0 | [1-9][0-9]*) (.[0-9]+)? ([eE][+-]?[0-9]+)?`.
    /// What follows it is the caller's business (`01` fails there: `1` cannot follow a value).
    private mutating func skipNumber() throws(JSONParseError) {
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard isDigit(at: index) else { throw .syntax }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            skipDigits()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard isDigit(at: index) else { throw .syntax }
            skipDigits()
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard isDigit(at: index) else { throw .syntax }
            skipDigits()
        }
    }

    @inline(__always)
    private func isDigit(at position: Int) -> Bool {
        position < bytes.count && bytes[position] &- UInt8(ascii: "0") < 10
    }

    @inline(__always)
    private mutating func skipDigits() {
        while isDigit(at: index) { index += 1 }
    }
}

/// The kinds (object or array) of the containers ``JSONByteReader/skipValue()`` has open, one bit
/// each, in fixed storage: the reader's depth limit bounds how many there can be.
private struct ContainerStack {
    private static let capacity = JSONByteReader.maximumDepth
    private var words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
    private var count = 0

    var isEmpty: Bool { count == 0 }

    /// `true` if the innermost open container is an object. Only valid when not empty.
    var topIsObject: Bool {
        let bit = count - 1
        return withUnsafeBytes(of: words) { raw in
            raw.load(fromByteOffset: (bit >> 6) * 8, as: UInt64.self) >> UInt64(bit & 63) & 1 == 1
        }
    }

    mutating func push(isObject: Bool) {
        // The caller has checked the depth limit, which is at most `capacity`.
        precondition(count < Self.capacity)
        let bit = count
        withUnsafeMutableBytes(of: &words) { raw in
            let offset = (bit >> 6) * 8
            var word = raw.load(fromByteOffset: offset, as: UInt64.self)
            let mask: UInt64 = 1 << UInt64(bit & 63)
            word = isObject ? word | mask : word & ~mask
            raw.storeBytes(of: word, toByteOffset: offset, as: UInt64.self)
        }
        count += 1
    }

    mutating func pop() { count -= 1 }
}
