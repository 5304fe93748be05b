/// One segment a customer belongs to, as the segments API returns it.
///
/// On the wire a segment is `{"id": "...", "segmentation_id": "..."}`. Both fields are strings; in
/// practice they are 24-hex-character ObjectIds, but any string is accepted. Two segments are equal
/// when both fields are equal.
///
/// A lower-case 24-hex id is held as its 96 bits, not as a `String`, so that fetching and diffing a
/// response does not allocate per segment. The segments the engine hands to callbacks and to
/// ``SegmentsClient/getSegments(category:force:)`` carry their ids spelled out (built
/// once per delivery, not per callback), so reading ``id`` there costs what reading a `String` does;
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
    /// Every segment with its ids spelled out (see ``Segment/spelledOut()``).
    func spelledOut() -> [Segment] { map { $0.spelledOut() } }
}
