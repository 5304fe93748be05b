/// Parses a segments response body — a bare JSON object mapping category names to arrays of
/// `{"id": String, "segmentation_id": String}` — straight from its UTF-8 bytes into the categories of
/// a ``SegmentsResponse``, in one pass and without Foundation.
///
/// It replaces `JSONDecoder().decode([String: [Segment]].self, ...)` and keeps its results and its
/// error texts ("invalid JSON at root", "expected Array<Any> at discovery", "missing \"id\" at
/// discovery.0", "null where String expected at discovery.0.id", ...). Like `JSONDecoder`:
/// - a syntax error anywhere wins over a shape error: on a shape error the whole document is
///   validated before the shape reason is reported;
/// - within a segment `id` is checked before `segmentation_id`; an empty category key is reported
///   only when everything else decoded;
/// - for a duplicated key the first occurrence wins and later ones are only validated as JSON: a
///   repeated category key (equal as Swift strings) or a repeated `id` / `segmentation_id`;
/// - a leading UTF-8 byte order mark is ignored, and containers may nest 512 deep.
///
/// Where it deliberately differs, it is stricter, following RFC 8259 where `JSONDecoder` is lenient:
/// trailing commas (`[1,]`, `{"a":1,}`) are rejected; so are, inside values that are skipped,
/// malformed numbers (`01`, `1.`, `-`, `1e`), invalid escapes (`\q`, `\u12G4`), lone surrogate
/// escapes, raw control characters and invalid UTF-8 (`JSONDecoder` only checks what it decodes);
/// and a body is always UTF-8 (`JSONDecoder` also guesses UTF-16 and UTF-32). Keys that name the same
/// category (`Discovery` and `discovery`) are merged in document order, where
/// ``SegmentsResponse/init(wireCategories:)`` merges in dictionary order.
struct SegmentsResponseParser {
    private var reader: JSONByteReader
    /// Bytes read again after the main pass had read them (see ``parse(_:rereadBytes:)``).
    private var rereadBytes = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>) {
        reader = JSONByteReader(bytes)
    }

    /// Parses `bytes` (a non-empty body).
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONParseError) -> [SegmentCategory: [Segment]] {
        var rereadBytes = 0
        return try parse(bytes, rereadBytes: &rereadBytes)
    }

    /// ``parse(_:)``, adding to `rereadBytes` how many bytes it read more than once: the work beyond
    /// the one pass, which must stay linear in the body's size (tests hold it to that).
    static func parse(
        _ bytes: UnsafeBufferPointer<UInt8>, rereadBytes: inout Int
    ) throws(JSONParseError) -> [SegmentCategory: [Segment]] {
        var parser = SegmentsResponseParser(bytes)
        defer { rereadBytes += parser.rereadBytes }
        do {
            return try parser.parseRoot()
        } catch .shape(let reason) {
            // JSONDecoder reads the whole document before it decodes anything, so invalid JSON
            // after a shape error is reported as invalid JSON. The error path can afford a second pass.
            parser.rereadBytes += bytes.count
            guard isValidDocument(bytes) else { throw .syntax }
            throw .shape(reason)
        }
    }

    /// Whether `bytes` are exactly one valid JSON value (of any type), with optional whitespace.
    static func isValidDocument(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var reader = JSONByteReader(bytes)
        reader.skipByteOrderMark()
        do {
            try reader.skipValue()
        } catch {
            return false
        }
        reader.skipWhitespace()
        return reader.isAtEnd
    }

    // MARK: Root

    private mutating func parseRoot() throws(JSONParseError) -> [SegmentCategory: [Segment]] {
        reader.skipByteOrderMark()
        try expectContainer(UInt8(ascii: "{"), type: "Dictionary<String, Any>", at: "root")
        let rootStart = reader.index - 1
        // Three known categories; one allocation instead of growing twice.
        var categories: [SegmentCategory: [Segment]] = Dictionary(minimumCapacity: 4)
        var invalidKey: String?
        // The root keys read so far, kept from the first key that names a category already seen.
        var earlierKeys: Set<String>?
        if reader.peek() == UInt8(ascii: "}") {
            reader.index += 1
        } else {
            while true {
                guard reader.peek() == 0x22 else { throw .syntax }
                let keyStart = reader.index
                let key = reader.makeString(try reader.scanString())
                try reader.consume(UInt8(ascii: ":"))
                let category = SegmentCategory(name: key)
                if categories.index(forKey: category) == nil {
                    earlierKeys?.insert(key)
                    categories[category] = try parseCategory(key: key)
                    if invalidKey == nil, !Self.isValid(category, key: key) { invalidKey = key }
                } else if isRepeatedRootKey(key, earlierKeys: &earlierKeys, rootStart: rootStart, before: keyStart) {
                    try reader.skipValue()
                } else {
                    // Another spelling of a category already seen (`Discovery`, `discovery`).
                    categories[category]!.append(contentsOf: try parseCategory(key: key))
                    if invalidKey == nil, !Self.isValid(category, key: key) { invalidKey = key }
                }
                if try endOfContainer(closing: UInt8(ascii: "}")) { break }
            }
        }
        reader.leaveContainer()
        reader.skipWhitespace()
        guard reader.isAtEnd else { throw .syntax }
        if let invalidKey { throw .shape("empty category key \"\(invalidKey)\"") }
        return categories
    }

    /// ``SegmentCategory/isValid``, without its Unicode property lookups for the usual key that starts
    /// with an ASCII byte that is not whitespace (such a key cannot be blank).
    @inline(__always)
    private static func isValid(_ category: SegmentCategory, key: String) -> Bool {
        if let first = key.utf8.first, first < 0x80, first != 0x20, !(0x09...0x0D).contains(first) { return true }
        return category.isValid
    }

    /// Whether a key equal to `key` (as Swift strings, as a `[String: _]` would compare them) came
    /// before `limit` in the root object; adds `key` to `earlierKeys`, the root keys before `limit`.
    ///
    /// Only asked when a key names a category already seen, which real bodies never do, so the
    /// common path keeps no keys: on the first such key `earlierKeys` is `nil` and is filled by
    /// re-reading the keys before it, once per body; from then on the caller adds every key, and
    /// each question is one set lookup, not a re-read (quadratic on a body of many repeats).
    private mutating func isRepeatedRootKey(
        _ key: String, earlierKeys: inout Set<String>?, rootStart: Int, before limit: Int
    ) -> Bool {
        if earlierKeys == nil { earlierKeys = rootKeys(after: rootStart, before: limit) }
        return !earlierKeys!.insert(key).inserted
    }

    /// The keys of the root object that starts at `rootStart`, up to `limit`, read again.
    private mutating func rootKeys(after rootStart: Int, before limit: Int) -> Set<String> {
        var keys = Set<String>()
        var rescan = JSONByteReader(reader.bytes)
        rescan.index = rootStart + 1
        rescan.depth = 1
        defer { rereadBytes += rescan.index - (rootStart + 1) }
        do {
            while rescan.peek() == 0x22, rescan.index < limit {
                keys.insert(rescan.makeString(try rescan.scanString()))
                try rescan.consume(UInt8(ascii: ":"))
                try rescan.skipValue()
                try rescan.consume(UInt8(ascii: ","))
            }
        } catch {
            // Already parsed once, so unreachable.
        }
        return keys
    }

    // MARK: Categories and segments

    /// Segments reserved per category up front: one allocation for a typical category (about ten).
    private static let typicalCategorySize = 16

    /// Parses the array of the category `key`.
    private mutating func parseCategory(key: String) throws(JSONParseError) -> [Segment] {
        try expectContainer(UInt8(ascii: "["), type: "Array<Any>", at: key)
        var segments: [Segment] = []
        if reader.peek() == UInt8(ascii: "]") {
            reader.index += 1
        } else {
            segments.reserveCapacity(Self.typicalCategorySize)
            while true {
                if !appendCompactSegment(to: &segments) {
                    segments.append(try parseSegment(key: key, index: segments.count))
                }
                if try endOfContainer(closing: UInt8(ascii: "]")) { break }
            }
        }
        reader.leaveContainer()
        return segments
    }

    /// What a segment's field held, kept until the object ends so that the errors come in
    /// `JSONDecoder`'s order (`id` first) whatever the order of the fields.
    private enum Field {
        case missing
        case string(SegmentId)
        case null
        case wrongType
    }

    private mutating func parseSegment(key: String, index: Int) throws(JSONParseError) -> Segment {
        try expectContainer(UInt8(ascii: "{"), type: "Dictionary<String, Any>", at: "\(key).\(index)")
        var id = Field.missing
        var segmentationId = Field.missing
        if reader.peek() == UInt8(ascii: "}") {
            reader.index += 1
        } else {
            while true {
                guard reader.peek() == 0x22 else { throw .syntax }
                let name = try reader.scanString()
                try reader.consume(UInt8(ascii: ":"))
                // Field names are compared on raw bytes; only an escaped name needs decoding.
                let isId: Bool
                let isSegmentationId: Bool
                if name.hasEscapes {
                    let decoded = reader.makeString(name)
                    isId = decoded == "id"
                    isSegmentationId = decoded == "segmentation_id"
                } else {
                    isId = reader.rawBytes(of: name, equal: "id")
                    isSegmentationId = !isId && reader.rawBytes(of: name, equal: "segmentation_id")
                }
                if isId, case .missing = id {
                    id = try readStringField()
                } else if isSegmentationId, case .missing = segmentationId {
                    segmentationId = try readStringField()
                } else {
                    // Unknown fields, and repeats of known ones (the first occurrence wins).
                    try reader.skipValue()
                }
                if try endOfContainer(closing: UInt8(ascii: "}")) { break }
            }
        }
        reader.leaveContainer()
        if case .string(let idValue) = id, case .string(let segmentationIdValue) = segmentationId {
            return Segment(storedId: idValue, storedSegmentationId: segmentationIdValue)
        }
        // The path is only built on this error path: interpolating it per segment costs more than
        // parsing the segment.
        let path = "\(key).\(index)"
        try Self.require(id, "id", at: path)
        try Self.require(segmentationId, "segmentation_id", at: path)
        throw .syntax  // Unreachable: one of the two fields was not a string.
    }

    /// `{"id":"<ObjectId>","segmentation_id":"<ObjectId>"}`, byte for byte: how the segments API
    /// writes every segment.
    private static let compactHead: StaticString = #"{"id":""#
    private static let compactMiddle: StaticString = #"","segmentation_id":""#
    private static let compactTail: StaticString = #""}"#
    private static let objectIdLength = 24

    /// Appends the segment at the reader to `segments` and returns `true` if it is written exactly
    /// as the API writes segments (see `compactHead`); else returns `false` with the reader unmoved.
    ///
    /// Most of a response is segments in that one layout, and taking them in one match instead of
    /// field by field halves the time of decoding a typical body. Anything else (whitespace, other
    /// field order, extra fields, escapes, ids that are not lower-case ObjectIds) goes the general way,
    /// which gives the same result for this layout: the match accepts only bytes that are valid
    /// JSON (hex digits need no validation) and opens and closes the segment's object itself.
    ///
    /// It appends rather than returns: a returned `Segment` (64 bytes) went through the stack twice
    /// on its way into the array, and reading it back stalled on the stores that had just written it.
    @inline(__always)
    private mutating func appendCompactSegment(to segments: inout [Segment]) -> Bool {
        reader.skipWhitespace()
        let headEnd = reader.index + Self.compactHead.utf8CodeUnitCount
        let middleEnd = headEnd + Self.objectIdLength + Self.compactMiddle.utf8CodeUnitCount
        let end = middleEnd + Self.objectIdLength + Self.compactTail.utf8CodeUnitCount
        guard end <= reader.bytes.count,
              reader.bytes(at: reader.index, equal: Self.compactHead),
              reader.bytes(at: headEnd + Self.objectIdLength, equal: Self.compactMiddle),
              reader.bytes(at: middleEnd + Self.objectIdLength, equal: Self.compactTail),
              let id = SegmentId.parseObjectId(at: reader.bytes.baseAddress! + headEnd),
              let segmentationId = SegmentId.parseObjectId(at: reader.bytes.baseAddress! + middleEnd),
              // The object opens and closes here; the general way reports it if it is one level too deep.
              reader.depth < JSONByteReader.maximumDepth
        else { return false }
        reader.index = end
        segments.append(Segment(storedId: SegmentId(high: id.high, low: id.low),
                                storedSegmentationId: SegmentId(high: segmentationId.high, low: segmentationId.low)))
        return true
    }

    private mutating func readStringField() throws(JSONParseError) -> Field {
        switch reader.peek() {
        case 0x22:
            return .string(reader.makeSegmentId(try reader.scanString()))
        case UInt8(ascii: "n"):
            try reader.skipLiteral("null")
            return .null
        default:
            try reader.skipValue()
            return .wrongType
        }
    }

    /// Throws the shape error of `field` if it is not a string.
    private static func require(_ field: Field, _ name: String, at path: String) throws(JSONParseError) {
        switch field {
        case .string: return
        case .missing: throw .shape("missing \"\(name)\" at \(path)")
        case .null: throw .shape("null where String expected at \(path).\(name)")
        case .wrongType: throw .shape("expected String at \(path).\(name)")
        }
    }

    // MARK: Punctuation

    /// Consumes the opening `bracket` of the container expected next. Another value there is a shape
    /// error in `JSONDecoder`'s words, naming `type` and the `path` (only built on that error path);
    /// a byte that starts no value is a syntax error.
    private mutating func expectContainer(
        _ bracket: UInt8, type: String, at path: @autoclosure () -> String
    ) throws(JSONParseError) {
        guard let byte = reader.peek() else { throw .syntax }
        switch byte {
        case bracket:
            reader.index += 1
            try reader.enterContainer()
        case UInt8(ascii: "n"):
            throw .shape("null where \(type) expected at \(path())")
        case UInt8(ascii: "{"), UInt8(ascii: "["), 0x22, UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "-"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            throw .shape("expected \(type) at \(path())")
        default:
            throw .syntax
        }
    }

    /// After an element: `true` on the container's `closing` bracket, `false` on a comma (which must
    /// be followed by another element: no trailing commas).
    @inline(__always)
    private mutating func endOfContainer(closing: UInt8) throws(JSONParseError) -> Bool {
        switch reader.peek() {
        case UInt8(ascii: ","):
            reader.index += 1
            return false
        case closing:
            reader.index += 1
            return true
        default:
            throw .syntax
        }
    }
}
