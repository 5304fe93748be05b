import Foundation
import RealtimeSegments

/// The JSON response bodies of the mock server, including the deliberately wrong ones that the
/// malformed-body fault sends.
enum WireResponseBodies {
    /// `{"success":true}`: a tracked event or customer update was accepted.
    static let success = Data(#"{"success":true}"#.utf8)
    /// `{}`: ids were linked.
    static let empty = Data("{}".utf8)

    /// The bare segments object of SPEC §7: category name → `[{"id", "segmentation_id"}]`, keys
    /// sorted so that equal responses are equal bytes.
    static func segments(_ response: SegmentsResponse) -> Data {
        var wire: [String: [Segment]] = [:]
        for (category, segments) in response.categories { wire[category.name] = segments }
        return encode(wire)
    }

    /// `{"results":[{"success":true}, ...],"success":true}`: `count` accepted commands.
    static func batchResults(count: Int) -> Data {
        batch(Array(repeating: .accepted, count: count))
    }

    /// `{"results":[<result>, ...],"success":true}`, one result per batch command in order: the
    /// batch itself was well-formed, whatever its commands' fates (Exponea's batch answer).
    static func batch(_ results: [BatchResult]) -> Data {
        var body = #"{"results":["#
        for (index, result) in results.enumerated() {
            if index > 0 { body += "," }
            switch result {
            case .accepted: body += #"{"success":true}"#
            case .time(let time): body += String(decoding: encode(TimeAnswer(time: time)), as: UTF8.self)
            case .refused(let reason): body += String(decoding: encode(Refusal(errors: [reason])), as: UTF8.self)
            }
        }
        body += #"],"success":true}"#
        return Data(body.utf8)
    }

    /// `{"success":true,"time":<seconds since 1970>}`: the answer of `system/time`.
    static func systemTime(_ time: Double) -> Data {
        encode(TimeAnswer(time: time))
    }

    /// `{"data":{"customer":{"audiences":{"edges":[]}}}}`: a well-formed qualified-segments answer,
    /// what a truncated fault on that endpoint cuts in half (its real answer needs a GraphQL
    /// execution, and half of any JSON object is equally unreadable).
    static let emptyQualifiedSegments = Data(#"{"data":{"customer":{"audiences":{"edges":[]}}}}"#.utf8)

    /// `{"error":message,"errors":[message],"success":false}`: Exponea's error shape (`success`
    /// and the list of `errors`), with the message also as the single `error` that readers of the
    /// mock's older answers look for.
    static func error(_ message: String) -> Data {
        encode(ErrorAnswer(error: message, errors: [message]))
    }

    /// A 200 body of the wrong shape for `endpoint`; `variant` (0, 1 or 2) picks which.
    ///
    /// For a fetch: an envelope around the categories, a non-string `id`, or a bare array. For
    /// qualified segments: `edges` that is not an array, `data` without `customer`, or HTML (each
    /// a "decode error" for the SDK). For the other endpoints: a JSON string instead of an object,
    /// a non-boolean `success`, or HTML.
    static func malformed(for endpoint: MockEndpoint, variant: Int) -> Data {
        let bodies: [String] =
            switch endpoint {
            case .fetchSegments:
                [
                    #"{"data":{"discovery":[{"id":"66140257f4cb337324209871","segmentation_id":"66140215fb50effc8a7218b4"}]}}"#,
                    #"{"discovery":[{"id":66140257,"segmentation_id":"66140215fb50effc8a7218b4"}]}"#,
                    #"[{"id":"66140257f4cb337324209871","segmentation_id":"66140215fb50effc8a7218b4"}]"#,
                ]
            case .qualifiedSegments:
                [
                    #"{"data":{"customer":{"audiences":{"edges":"qualified"}}}}"#,
                    #"{"data":{}}"#,
                    "<html><body>OK</body></html>",
                ]
            case .linkIds, .trackEvent, .trackCustomer, .trackBatch, .systemTime:
                [#""ok""#, #"{"success":"yes"}"#, "<html><body>OK</body></html>"]
            }
        return Data(bodies[variant % bodies.count].utf8)
    }

    private static func encode(_ value: some Encodable) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding strings, finite numbers, booleans and segments cannot fail.
        return (try? encoder.encode(value)) ?? Data("{}".utf8)
    }

    private struct TimeAnswer: Encodable {
        var success = true
        var time: Double
    }

    private struct Refusal: Encodable {
        var errors: [String]
        var success = false
    }

    private struct ErrorAnswer: Encodable {
        var error: String
        var errors: [String]
        var success = false
    }
}
