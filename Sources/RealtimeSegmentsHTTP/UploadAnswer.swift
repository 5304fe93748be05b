import Foundation
import RealtimeSegments

/// What the tracking and link-ids endpoints answered in a 2xx body: which commands the server
/// accepted, which it refused, or that the body is not of the documented shape.
///
/// A 2xx status alone does not say that an upload arrived: a proxy or captive portal answers 200
/// with a page of its own, and the tracking API reports a refused command as `"success": false` in
/// a 200 body. Counting those as delivered would drop the events without a word, so a body of the
/// wrong shape is a `SegmentsError.malformedResponse(_:)` (the engine keeps the upload and
/// retries it), and a refusal is returned to be logged: a command the server refused would be
/// refused again.
enum UploadAnswer {
    /// A command the server refused: its index in the request and the reason the server gave.
    typealias Refusal = CommandRefusal

    /// The answer of `customers/events` or `customers`: `{"success": true}` accepts the command,
    /// `{"success": false, …}` refuses it (returned); anything else throws.
    static func command(_ body: [UInt8], endpoint: String) throws(SegmentsError) -> Refusal? {
        let result = try decode(CommandResult.self, from: body, endpoint: endpoint, shape: #"{"success": true|false}"#)
        return result.refusal(at: 0)
    }

    /// The answer of `batch`: `{"results": [{"success": …}, …]}` with one result per command, in
    /// order. Returns the refused commands; a body of another shape, or with another number of
    /// results, throws: it cannot say which events arrived.
    static func batch(_ body: [UInt8], commands: Int, endpoint: String) throws(SegmentsError) -> [Refusal] {
        let answer = try decode(BatchResults.self, from: body, endpoint: endpoint, shape: #"{"results": [{"success": …}, …]}"#)
        guard answer.results.count == commands else {
            throw .malformedResponse("\(endpoint) answered \(answer.results.count) results for \(commands) commands")
        }
        return answer.results.enumerated().compactMap { index, result in result.refusal(at: index) }
    }

    /// The answer of `link-ids`: no body (a 204, say: the reference SDKs ignore this body), or a
    /// JSON object whose `success`, if present, is `true`. A refused link throws too: counted as
    /// done, the customer's ids would never be linked again.
    static func link(_ body: [UInt8], endpoint: String) throws(SegmentsError) {
        if body.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) { return }
        let answer = try decode(LinkResult.self, from: body, endpoint: endpoint, shape: "a JSON object")
        if answer.success == false {
            throw .malformedResponse("\(endpoint) refused the link: \(describe(answer.errors ?? answer.error))")
        }
    }

    /// One command's result. Decoded with `JSONDecoder`, which takes only `true` or `false` for a
    /// `Bool`: `"yes"` or `1` do not pass.
    private struct CommandResult: Decodable {
        var success: Bool
        var errors: JSONValue?
        var error: JSONValue?

        func refusal(at index: Int) -> Refusal? {
            success ? nil : Refusal(index: index, reason: describe(errors ?? error))
        }
    }

    private struct BatchResults: Decodable {
        var results: [CommandResult]
    }

    private struct LinkResult: Decodable {
        var success: Bool?
        var errors: JSONValue?
        var error: JSONValue?
    }

    private static func decode<Answer: Decodable>(
        _ type: Answer.Type, from body: [UInt8], endpoint: String, shape: String
    ) throws(SegmentsError) -> Answer {
        do {
            return try JSONDecoder().decodeUntrusted(type, from: Data(body))
        } catch {
            throw .malformedResponse("\(endpoint) answered a body that is not \(shape): \(excerpt(body))")
        }
    }

    /// The reason a server gave, as one short line.
    private static func describe(_ reason: JSONValue?) -> String {
        guard let reason else { return "no reason given" }
        let text: String
        if case .string(let string) = reason {
            text = string
        } else {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            text = (try? encoder.encode(reason)).map { String(decoding: $0, as: UTF8.self) } ?? "\(reason)"
        }
        return (text.count > 200 ? String(text.prefix(200)) + "…" : text).escapingControlCharacters
    }

    /// The start of a body, for an error message.
    private static func excerpt(_ body: [UInt8]) -> String {
        let text = String(decoding: body.prefix(100), as: UTF8.self)
        return body.count > 100 ? text + "…" : text
    }
}
