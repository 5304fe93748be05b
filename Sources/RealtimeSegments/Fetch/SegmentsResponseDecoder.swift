import Foundation

/// Decodes a segments response body: a bare JSON object mapping category names to arrays of
/// `{"id": String, "segmentation_id": String}`.
///
/// Strict on shape, lenient on extras: a body that is not that shape (not an object, an envelope, a
/// non-array value, a segment without both string fields, an empty category key) is
/// ``SegmentsError/malformedResponse(_:)``; unknown extra fields inside a segment are ignored,
/// whatever JSON value they hold. The body must be one RFC 8259 JSON document in UTF-8 (a leading
/// byte order mark is ignored); for a repeated key the first occurrence wins.
public enum SegmentsResponseDecoder {
    /// Decodes `body`. Throws ``SegmentsError/malformedResponse(_:)`` with a short reason: "empty
    /// body", "invalid JSON at root", or a shape error naming the path (category key, then segment
    /// index, then field), e.g. "missing \"id\" at discovery.0" or "expected String at
    /// discovery.0.segmentation_id".
    public static func decode(_ body: some DataProtocol) throws(SegmentsError) -> SegmentsResponse {
        // Foundation ends here: the parser reads the bytes in place when they are contiguous (`Data`,
        // `[UInt8]`) and otherwise from one copy.
        let result: Result<[SegmentCategory: [Segment]], JSONParseError>? =
            body.withContiguousStorageIfAvailable { parse($0) }
        switch result ?? Array(body).withUnsafeBufferPointer({ parse($0) }) {
        case .success(let categories):
            return SegmentsResponse(categories: categories)
        case .failure(.syntax):
            throw .malformedResponse(body.isEmpty ? "empty body" : "invalid JSON at root")
        case .failure(.shape(let reason)):
            throw .malformedResponse(reason)
        }
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<[SegmentCategory: [Segment]], JSONParseError> {
        Result { () throws(JSONParseError) in try SegmentsResponseParser.parse(bytes) }
    }
}
