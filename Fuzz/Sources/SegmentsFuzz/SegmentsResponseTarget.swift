import Foundation
@testable import RealtimeSegments

/// The hand-written segments parser against `JSONDecoder` (the implementation it replaced, as in
/// `SegmentsResponseDifferentialTests`) on every input that is strict JSON: both accept or both
/// reject, with the same kind of reason and the same response. Elsewhere the parser must reject
/// (it accepts strict JSON only). Beyond the oracle: no crash, no hang.
enum SegmentsResponseTarget {
    static func run(_ data: Data) {
        let actual = Result { () throws(SegmentsError) in try SegmentsResponseDecoder.decode(data) }
        let strict = data.withUnsafeBytes { raw in
            SegmentsResponseParser.isValidDocument(raw.bindMemory(to: UInt8.self))
        }
        guard strict else {
            if case .success(let response) = actual { check(false, "accepted a body that is not strict JSON: \(response)") }
            return
        }
        // Strict JSON nests at most 512 deep, which `JSONDecoder` survives.
        let reference = Result { () throws(SegmentsError) in try referenceDecode(data) }
        switch (reference, actual) {
        case (.success(let wire), .success(let response)):
            check(sameResponse(response, wire), "different responses: \(response) vs \(wire)")
        case (.success(let wire), .failure(let error)):
            check(false, "rejected what JSONDecoder accepts: \(error) vs \(wire)")
        case (.failure(let expected), .success(let response)):
            check(false, "accepted what JSONDecoder rejects: \(response) vs \(expected)")
        case (.failure(let expected), .failure(let error)):
            let syntax = [SegmentsError.malformedResponse("invalid JSON at root"), .malformedResponse("empty body")]
            check(syntax.contains(error) == syntax.contains(expected), "different kinds of error: \(error) vs \(expected)")
        }
    }

    /// The `JSONDecoder` implementation, as `ReferenceSegmentsDecoder` in the tests keeps it (minus
    /// the reason texts, of which only the kind is compared).
    private static func referenceDecode(_ data: Data) throws(SegmentsError) -> [String: [Segment]] {
        guard !data.isEmpty else { throw .malformedResponse("empty body") }
        let root: [String: [Segment]]
        do {
            root = try JSONDecoder().decode([String: [Segment]].self, from: data)
        } catch DecodingError.dataCorrupted {
            throw .malformedResponse("invalid JSON at root")
        } catch {
            throw .malformedResponse("shape: \(error)")
        }
        if let empty = root.keys.first(where: { !SegmentCategory(name: $0).isValid }) {
            throw .malformedResponse("empty category key \"\(empty)\"")
        }
        return root
    }

    /// Equal categories; where several wire keys were merged into one category, equal as multisets
    /// (the reference merges in dictionary order).
    private static func sameResponse(_ response: SegmentsResponse, _ wire: [String: [Segment]]) -> Bool {
        var keysPerCategory: [SegmentCategory: Int] = [:]
        for key in wire.keys { keysPerCategory[SegmentCategory(name: key), default: 0] += 1 }
        let expected = SegmentsResponse(wireCategories: wire)
        guard Set(expected.categories.keys) == Set(response.categories.keys) else { return false }
        for (category, segments) in expected.categories {
            let actual = response[category]
            if keysPerCategory[category] == 1 {
                if actual != segments { return false }
            } else {
                let order = { (a: Segment, b: Segment) in (a.id, a.segmentationId) < (b.id, b.segmentationId) }
                if actual.sorted(by: order) != segments.sorted(by: order) { return false }
            }
        }
        return true
    }
}
