/// One segment a customer belongs to, as the segments API returns it.
///
/// On the wire a segment is `{"id": "...", "segmentation_id": "..."}`. Both fields are strings; in
/// practice they are 24-hex-character ObjectIds, but any string is accepted. Two segments are equal
/// when both fields are equal.
public struct Segment: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The segment's id (the segment inside its segmentation).
    public var id: String
    /// The id of the segmentation this segment belongs to.
    public var segmentationId: String

    /// Creates a segment.
    public init(id: String, segmentationId: String) {
        self.id = id
        self.segmentationId = segmentationId
    }

    private enum CodingKeys: String, CodingKey {
        case id
        case segmentationId = "segmentation_id"
    }

    public var description: String { "{id=\(id), segmentation_id=\(segmentationId)}" }
}
