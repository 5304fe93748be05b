/// One segment a customer belongs to, as the segments API returns it.
///
/// On the wire a segment is `{"id": "...", "segmentation_id": "..."}`. Both fields are strings; in
/// practice they are 24-hex-character ObjectIds, but any string is accepted. Two segments are equal
/// when both fields are equal.
///
/// A lower-case 24-hex id is held as its 96 bits, not as a `String`, so that fetching and diffing a
/// response does not allocate per segment. The segments the engine hands to callbacks and to
/// ``SegmentsClient/getSegments(category:force:)`` carry their ids spelled out (built
/// once per delivery, not per callback, and shared with the category's previous delivery where an id
/// repeats), so reading ``id`` there costs what reading a `String` does;
/// on a segment built some other way, reading an ObjectId spells it anew. Any other id is held, and
/// returned, as given.
public struct Segment: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The segment's id, in canonical form (see ``SegmentId``).
    var storedId: SegmentId
    /// The segmentation's id, in canonical form.
    var storedSegmentationId: SegmentId

    /// The segment's id (the segment inside its segmentation).
    public var id: String {
        get { storedId.string }
        set { storedId = SegmentId(newValue) }
    }

    /// The id of the segmentation this segment belongs to.
    public var segmentationId: String {
        get { storedSegmentationId.string }
        set { storedSegmentationId = SegmentId(newValue) }
    }

    /// Creates a segment.
    public init(id: String, segmentationId: String) {
        self.init(storedId: SegmentId(id), storedSegmentationId: SegmentId(segmentationId))
    }

    /// Creates a segment from ids already in canonical form (the response parser's way).
    init(storedId: SegmentId, storedSegmentationId: SegmentId) {
        self.storedId = storedId
        self.storedSegmentationId = storedSegmentationId
    }

    /// This segment with its ObjectIds spelled out and kept, for segments handed to app code: reading
    /// `id` of the copy, from any number of callbacks, allocates nothing.
    func spelledOut() -> Segment {
        Segment(storedId: storedId.spelledOut(), storedSegmentationId: storedSegmentationId.spelledOut())
    }

    private enum CodingKeys: String, CodingKey {
        case id
        case segmentationId = "segmentation_id"
    }

    /// Decodes `{"id": String, "segmentation_id": String}`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(id: try container.decode(String.self, forKey: .id),
                  segmentationId: try container.decode(String.self, forKey: .segmentationId))
    }

    /// Encodes `{"id": String, "segmentation_id": String}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(segmentationId, forKey: .segmentationId)
    }

    public var description: String { "{id=\(id), segmentation_id=\(segmentationId)}" }
}

extension [Segment] {
    /// Every segment with its ids spelled out (see ``Segment/spelledOut()``), a segmentation id
    /// shared with the segment before it where they are equal.
    func spelledOut() -> [Segment] { spelledOut(reusing: []) }

    /// Every segment with its ids spelled out, sharing the strings of `previous` (a list spelled
    /// out before: the category's last delivery, or `[]`) for the ids it holds at the same index or
    /// one off, and a segmentation id with the segment before it.
    ///
    /// Spelling an ObjectId allocates its string, and the engine spells a delivery's ids before the
    /// first callback runs. A customer's segments change a few at a time and keep their order, so
    /// most ids of a new list sit where they sat in the last one, or one place off (a segment added
    /// or removed before them); and segments of one segmentation are listed together, so a
    /// segmentation id is often the one just spelled. Such an id costs a comparison instead of an
    /// allocation. Only equal ids share a string: a miss costs the spelling, never a wrong id.
    func spelledOut(reusing previous: [Segment]) -> [Segment] {
        // Read in place through pointers: copying a segment out retains its ids' strings, which
        // the unspelled ones do not need and the reused ones need only once.
        withUnsafeBufferPointer { list in
            previous.withUnsafeBufferPointer { previous in
                // Reserved and appended rather than `init(unsafeUninitializedCapacity:)`, whose
                // allocation is not specialized and looks up the array's storage type in the
                // runtime's metadata cache on every call.
                var result = [Segment]()
                result.reserveCapacity(list.count)
                guard let source = list.baseAddress else { return result }
                for index in 0..<list.count {
                    let segment = source + index
                    let id = Self.spelledOut(segment, \.storedId, at: index, reusing: previous)
                    let segmentationId =
                        if index > 0, segment.pointee.storedSegmentationId.needsSpelling,
                            SegmentId.equal(in: segment, \.storedSegmentationId, segment - 1)
                        {
                            result[index - 1].storedSegmentationId
                        } else {
                            Self.spelledOut(segment, \.storedSegmentationId, at: index, reusing: previous)
                        }
                    result.append(Segment(storedId: id, storedSegmentationId: segmentationId))
                }
                return result
            }
        }
    }

    /// The id at `path` of `segment` (at `index` of its list) spelled out: as it is if it needs no
    /// spelling, else the equal id at `path` of `previous[index]`, `previous[index - 1]` or
    /// `previous[index + 1]` if one holds it spelled, else spelled anew.
    @inline(__always)
    private static func spelledOut(
        _ segment: UnsafePointer<Segment>, _ path: KeyPath<Segment, SegmentId>, at index: Int,
        reusing previous: UnsafeBufferPointer<Segment>
    ) -> SegmentId {
        let id = segment.pointer(to: path)!
        guard id.pointee.needsSpelling else { return id.pointee }
        let first = Swift.max(index - 1, 0)
        let end = Swift.min(index + 2, previous.count)
        if let base = previous.baseAddress, first < end {
            for candidate in first..<end where SegmentId.equal(in: base + candidate, path, segment) {
                let spelled = (base + candidate).pointer(to: path)!
                if !spelled.pointee.needsSpelling { return spelled.pointee }
            }
        }
        return SegmentId.spelledOut(high: id.pointee.high, low: id.pointee.low)
    }
}
