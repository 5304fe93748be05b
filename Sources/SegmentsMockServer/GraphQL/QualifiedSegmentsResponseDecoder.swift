import Foundation
import GraphQL
import RealtimeSegments

/// Reads a qualified-segments answer the way the reference SDK does (SPEC §9, notes A.5): the
/// qualified audience names, or the SPEC §9 error. The in-memory transport reads every answer with
/// it; tests can read the HTTP server's bodies with it too.
///
/// In order: a body that is not a JSON object → `fetchSegmentsFailed("decode error")`; an `errors`
/// array whose first element has `extensions.classification` → ``SegmentsError/invalidSegmentIdentifier``
/// when `extensions.code` is `INVALID_IDENTIFIER_EXCEPTION`, else `fetchSegmentsFailed(<classification>)`;
/// then `data.customer.audiences.edges` must be an array of objects (else "decode error"). Every
/// `node` with a string `name` and `state` counts; the result is the names whose `state` is exactly
/// `"qualified"`, in server order. Key paths go through objects only.
public enum QualifiedSegmentsResponseDecoder {
    /// The reason of a body that cannot be read.
    public static let decodeError = "decode error"

    /// Decodes a JSON body (an HTTP 200 body; a status ≥ 400 is the caller's
    /// `fetchSegmentsFailed("<status>")`).
    public static func qualifiedSegments(json: Data) throws(SegmentsError) -> [String] {
        guard let body = try? JSONDecoder().decode(Map.self, from: json) else {
            throw .fetchSegmentsFailed(decodeError)
        }
        return try qualifiedSegments(body)
    }

    /// Decodes a JSON tree.
    static func qualifiedSegments(_ body: Map) throws(SegmentsError) -> [String] {
        guard body.isDictionary else { throw .fetchSegmentsFailed(decodeError) }
        if let first = body["errors"].array?.first, let classification = first["extensions", "classification"].string {
            if first["extensions", "code"].string == QualifiedSegmentsSchema.invalidIdentifierCode {
                throw .invalidSegmentIdentifier
            }
            throw .fetchSegmentsFailed(classification)
        }
        guard let edges = body["data", "customer", "audiences", "edges"].array,
            edges.allSatisfy(\.isDictionary)
        else { throw .fetchSegmentsFailed(decodeError) }
        var qualified: [String] = []
        for edge in edges {
            let node = edge["node"]
            guard let name = node["name"].string, let state = node["state"].string else { continue }
            if state == AudienceNode.qualified { qualified.append(name) }
        }
        return qualified
    }
}
